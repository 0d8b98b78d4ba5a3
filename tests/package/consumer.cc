// Translates its arguments with the model given first, through tern's installed C++ API.
#include <iostream>
#include <string_view>
#include <vector>

#include <tern/model.h>
#include <tern/translator.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: consumer MODEL SENTENCE...\n";
    return 2;
  }
  auto model = tern::Model::Load(argv[1]);
  if (!model.ok()) {
    std::cerr << model.status().message() << "\n";
    return 1;
  }
  tern::TranslatorConfig config;
  config.threads = 1;
  auto translator = tern::Translator::Create(model.value(), config);
  if (!translator.ok()) {
    std::cerr << translator.status().message() << "\n";
    return 1;
  }
  std::vector<std::string_view> in(argv + 2, argv + argc);
  tern::Span<const tern::TranslationResult> out;
  tern::Status s = translator.value()->Translate({in.data(), in.size()}, {}, &out);
  if (!s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  for (const tern::TranslationResult& r : out) std::cout << (r.ok() ? r.best().text : r.error_message) << "\n";
  return 0;
}
