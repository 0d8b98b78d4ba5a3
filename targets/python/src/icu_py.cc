// tern.Translator.translate_icu_messages: tern::TranslateIcuMessages (tern/icu_message.h) for Python, the GIL
// released and the translator locked as translate_batch does.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "call_inputs.h"
#include "tern/icu_message.h"
#include "translator_call.h"

namespace tern::python {

void RegisterIcuMessages(py::class_<PyTranslator>& cls) {
  cls.def(
      "translate_icu_messages",
      [](PyTranslator& self, py::object messages, std::optional<uint32_t> beam_size, std::optional<uint32_t> max_length,
         bool keep_placeholders, std::string placeholder_syntaxes, std::string target_lang, std::string on_error) {
        if (on_error != "raise" && on_error != "keep")
          Raise(StatusCode::kInvalidArgument, "on_error: 'raise' or 'keep', got '" + on_error + "'");
        const std::vector<std::string> in = TextsOf(messages, "messages");
        TranslateOptions o;
        o.beam_size = beam_size, o.max_length = max_length;
        o.keep_placeholders = keep_placeholders;
        const Result<uint32_t> syntaxes = PlaceholderSyntaxesFromNames(placeholder_syntaxes);
        if (!syntaxes.ok()) Raise(syntaxes.status());
        o.placeholder_syntaxes = syntaxes.value();
        o.target_lang = target_lang;
        const std::vector<std::string_view> views(in.begin(), in.end());
        std::vector<IcuTranslation> out;
        Status st;
        {
          CallLock lock(self);
          py::gil_scoped_release unlocked;
          lock.Lock();
          st = TranslateIcuMessages(*self.translator, Span<const std::string_view>(views.data(), views.size()), o, &out);
        }
        if (!st.ok()) Raise(st);
        py::list result;
        for (size_t i = 0; i < out.size(); ++i) {
          if (out[i].ok()) {
            result.append(py::str(out[i].text));
          } else if (on_error == "raise") {
            Raise(out[i].error, "messages[" + std::to_string(i) + "]: " + out[i].error_message);
          } else {
            result.append(py::none());
          }
        }
        return result;
      },
      py::arg("messages"), py::kw_only(), py::arg("beam_size") = py::none(), py::arg("max_length") = py::none(),
      py::arg("keep_placeholders") = false, py::arg("placeholder_syntaxes") = "default", py::arg("target_lang") = "",
      py::arg("on_error") = "raise",
      "Translates ICU MessageFormat messages (tern/icu_message.h): the text of each message and of every plural / "
      "select case, arguments and '#' kept, the syntax rebuilt. Returns a str per message; a malformed message "
      "raises InvalidArgumentError naming its index and byte (on_error='raise') or is None (on_error='keep').");
}

}  // namespace tern::python
