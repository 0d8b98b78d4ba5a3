#include "translate_cmd.h"

#include "cli_io.h"
#include "icu_lines.h"
#include "input_line.h"
#include "kernels/int8_gemm.h"
#include "kernels/isa.h"
#include "profile_report.h"
#include "result_writer.h"
#include "stream_printer.h"
#include "translate_options.h"
#include "tern/tokenize.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tern/cpu.h"
#include "tern/model.h"
#include "tern/tokenize.h"
#include "tern/translator.h"
#include "tern/version.h"

namespace tern::cli {
namespace {

}  // namespace

int RunTranslate(const TranslateArgs& args) {
  const auto t_load = std::chrono::steady_clock::now();
  auto model = Model::Load(args.model, ToolLoadOptions(args.packed_cache, args.no_packed_cache, args.mmap));
  if (!model.ok()) {
    std::cerr << "tern: " << model.status().message() << "\n";
    return 2;
  }
  // Every argument is checked before anything is written: a bad option is exit 2 with the old output kept.
  TranslateOptions opt;
  std::shared_ptr<const Glossary> glossary;
  OutputFormat format;
  if (Status st = MakeTranslateOptions(args, *model.value(), &opt, &glossary, &format); !st.ok()) {
    std::cerr << "tern: " << WithFlag(st.message()) << "\n";
    return 2;
  }
  if (Status st = CheckOptionRanges(opt); !st.ok()) {  // the field table's rule, the same in every binding
    std::cerr << "tern: " << WithFlag(st.message()) << "\n";
    return 2;
  }
  if (args.beam() > kMaxBeam || args.n_best() > kMaxBeam || args.alternatives() > kMaxBeam) {
    std::cerr << "tern: --beam, --n-best and --alternatives: at most " << kMaxBeam << " (tern::kMaxBeam)\n";
    return 2;
  }
  TranslatorConfig cfg;
  cfg.max_batch = args.batch;  // 0: the file's default limit
  // --attention returns the cross-attention; the coverage penalty sums it: both need its buffers planned.
  cfg.attention = opt.return_attention || opt.coverage_penalty != 0.f;
  cfg.threads = args.threads;
  if (args.beam()) cfg.max_beam = args.beam();
  const uint32_t hypotheses = std::max(args.n_best(), args.alternatives());  // per input line
  cfg.max_n_best = hypotheses;
  if (hypotheses > std::max<uint32_t>(args.beam() ? args.beam() : model.value()->generation().beam_size, 1))
    cfg.max_beam = hypotheses;
  if (args.max_length()) cfg.max_target_tokens = std::min<uint32_t>(args.max_length(), model.value()->hparams().max_positions - 1);
  auto tr = Translator::Create(model.value(), cfg);
  if (!tr.ok()) {
    std::cerr << "tern: " << tr.status().message() << "\n";
    return 2;
  }
  Translator& t = *tr.value();
  if (args.threads > t.threads())
    std::cerr << "tern: warning: --threads " << args.threads << ": this CPU has " << DescribeCpu().processors
              << " hardware threads; using " << t.threads() << "\n";
  const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_load).count();
  t.EnableProfile(args.profile);
  if (args.verbose) {
    std::cerr << "tern: version " << Version() << "\n"
              << "tern: cpu: " << CpuSummary() << "\n"
              << "tern: own kernels: " << IsaSummary() << "; int8 linear layers: " << Int8GemmSummary() << "\n"
              << "tern: model: " << args.model << " (" << DTypeName(model.value()->weight_dtype()) << ", "
              << model.value()->file_bytes() / 1048576.0 << " MiB), loaded in " << load_ms << " ms\n"
              << "tern: packed weights: " << model.value()->packed_weights_note() << "\n"
              << "tern: threads " << t.threads() << ", arena " << t.arena_bytes() << " bytes ("
              << t.arena_unshared_bytes() << " without sharing)\n";
  }

  // --suppress: target sequences never generated (target text, or target ids with --ids).
  std::vector<std::vector<uint32_t>> suppress(args.suppress.size());
  std::vector<Span<const uint32_t>> suppress_spans;
  std::unique_ptr<TextTokenizer> target_pieces;
  for (size_t k = 0; k < args.suppress.size(); ++k) {
    std::string error;
    Status st;
    if (args.ids) {
      if (!ParseIds(args.suppress[k], &suppress[k], &error)) st = Status(StatusCode::kInvalidArgument, error);
    } else {
      if (!target_pieces) {
        auto made = TextTokenizer::Create(model.value(), TextTokenizer::Side::kTarget);
        if (!made.ok()) st = made.status();
        else target_pieces = std::move(made.value());
      }
      if (target_pieces) st = target_pieces->Encode(args.suppress[k], "", &suppress[k]);
      if (st.ok() && !suppress[k].empty()) suppress[k].pop_back();  // the </s> Encode appends
    }
    if (!st.ok()) {
      std::cerr << "tern: --suppress '" << args.suppress[k] << "': " << st.message() << "\n";
      return 2;
    }
    suppress_spans.emplace_back(suppress[k].data(), suppress[k].size());
  }
  opt.suppress_sequences = Span<const Span<const uint32_t>>(suppress_spans.data(), suppress_spans.size());
  if (Status st = t.CheckOptions(opt); !st.ok()) {
    std::cerr << "tern: " << WithFlag(st.message()) << "\n";
    return 2;
  }
  LineInput in;
  OutputFile output;
  for (Status st : {in.Open(args.input), CheckNotAnInput(args.output, args.model, "model"),
                    CheckNotAnInput(args.output, args.glossary, "glossary"), output.Open(args.output, args.input)}) {
    if (!st.ok()) {
      std::cerr << "tern: " << st.message() << "\n";
      return 2;
    }
  }
  std::ostream* out = &output.stream();
#ifdef __EMSCRIPTEN__
  const bool interactive = false;  // Emscripten's standard input is a terminal device even when Node's is a pipe
#else
  const bool interactive = args.input.empty() && isatty(STDIN_FILENO);
#endif
  // With alternatives each line is that many sentences of the second pass (session/alternatives_call.h).
  const size_t batch = interactive || args.stream ? 1 : std::max<size_t>(1, t.max_batch() / std::max<uint32_t>(1, args.alternatives()));
  StreamPrinter printer;
  printer.out = out;
  printer.ids = args.ids;
  printer.eos = model.value()->hparams().eos_id;
  if (args.stream) {
    opt.on_token = StreamPrinter::OnToken;
    opt.on_token_user_data = &printer;
    opt.abort = Interrupted;  // Ctrl-C stops the line being translated
    CatchInterrupt();         // after output.Open, whose handler removes the temporary output otherwise
  }
  bool cancelled = false;
  const auto& langs = model.value()->language_tokens();
  if (args.options.target_lang.empty() && !langs.empty() && !args.ids) {
    std::string have;
    for (std::string_view l : langs) have += (have.empty() ? "" : " ") + std::string(l);
    std::cerr << "tern: the model translates into several languages (" << have
              << "): give --target-lang, or start each line with its token; lines without one get no language token\n";
  }
  if (args.verbose && args.split() && !t.splits_sentences())
    std::cerr << "tern: this build has no ICU: lines are not split into sentences\n";

  // --target-prefix: the same prefix for every line (text, or target ids with --ids).
  std::vector<uint32_t> prefix_ids;
  if (args.target_prefix && args.ids) {
    std::string error;
    if (!ParseIds(*args.target_prefix, &prefix_ids, &error)) {
      std::cerr << "tern: --target-prefix: " << error << "\n";
      return 2;
    }
  }
  size_t line_no = 0, failed = 0, sentences = 0, tokens = 0;
  double translate_ms = 0;
  std::vector<InputLine> lines;
  auto flush = [&]() {
    if (lines.empty()) return;
    std::vector<std::string_view> texts;
    std::vector<Span<const uint32_t>> idspans;
    std::vector<size_t> index;  // lines[index[k]] is the k-th sentence sent
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!lines[i].parse_error.empty()) continue;
      index.push_back(i);
      texts.push_back(lines[i].text);
      idspans.emplace_back(lines[i].ids.data(), lines[i].ids.size());
    }
    Span<const TranslationResult> results;
    Status st;
    const auto t0 = std::chrono::steady_clock::now();
    printer.Reset();
    std::vector<std::string_view> prefix_texts;
    std::vector<Span<const uint32_t>> prefix_spans;
    if (args.target_prefix && args.ids) {
      prefix_spans.assign(index.size(), Span<const uint32_t>(prefix_ids.data(), prefix_ids.size()));
      opt.target_prefix_ids = Span<const Span<const uint32_t>>(prefix_spans.data(), prefix_spans.size());
    } else if (args.target_prefix) {
      prefix_texts.assign(index.size(), *args.target_prefix);
      opt.target_prefix = Span<const std::string_view>(prefix_texts.data(), prefix_texts.size());
    }
    if (args.icu_messages) {  // each line one ICU message: its text or its error
      const size_t bad = TranslateIcuLines(t, lines, texts, opt, *out);
      failed += bad, sentences += lines.size() - bad;
      out->flush();
      lines.clear();
      return;
    }
    // Sampling: each line keyed by its index in the input (0-based), so that --batch does not change what it draws.
    std::vector<uint64_t> keys;
    for (size_t i : index) keys.push_back(lines[i].number - 1);
    opt.sampling_keys = Span<const uint64_t>(keys.data(), keys.size());
    if (!index.empty()) {
      st = args.ids ? t.TranslateIds(Span<const Span<const uint32_t>>(idspans.data(), idspans.size()), opt, &results)
                    : t.Translate(Span<const std::string_view>(texts.data(), texts.size()), opt, &results);
    }
    translate_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (st.code() == StatusCode::kCancelled) {  // results are still there; the line was cut short
      cancelled = true;
      st = Status::Ok();
    }
    size_t k = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      const InputLine& l = lines[i];
      std::string error = l.parse_error;
      const TranslationResult* r = nullptr;
      if (error.empty()) {
        if (!st.ok()) error = st.message();
        else if (!results[k].ok()) error = std::string(results[k].error_message);
        else r = &results[k];
        ++k;
      }
      if (!r) {
        std::cerr << "tern: line " << l.number << ": " << error << "\n";
        ++failed;
      } else {
        ++sentences;
        for (const Hypothesis& h : r->hypotheses) tokens += h.ids.size() + 1;
      }
      WriteResult(*out, format, l.number, l.text, r, error);
    }
    out->flush();
    lines.clear();
  };
  // A write that fails (a full disk) ends the run: the output file is not replaced.
  auto write_failed = [&]() {
    if (*out) return false;
    std::cerr << "tern: " << (args.output.empty() ? std::string("standard output") : args.output)
              << ": write failed: " << std::strerror(errno ? errno : EIO) << "\n";
    return true;
  };

  std::string s;
  bool too_long = false;
  if (interactive) std::cerr << "> " << std::flush;
  while (!cancelled && !g_interrupted && in.Next(&s, &too_long, &g_interrupted)) {
    ++line_no;
    InputLine l{line_no, s, {}, {}};
    if (too_long) l.parse_error = LineTooLong();
    else if (args.ids && !ParseIds(s, &l.ids, &l.parse_error)) {}
    lines.push_back(std::move(l));
    if (lines.size() >= batch) {
      flush();
      if (write_failed()) return 2;
      if (interactive) std::cerr << "> " << std::flush;
    }
  }
  if (g_interrupted || cancelled) {
    // Ctrl-C (--stream): what was printed stays on the screen; an --output file is not replaced by the few
    // lines written so far (its temporary is removed, the old file kept).
    out->flush();
    std::cerr << "tern: interrupted\n";
    return 130;
  }
  // Every line read before a read error is translated and written first; then the error, naming the line.
  flush();
  if (in.error()) {
    out->flush();
    std::cerr << "tern: " << (args.input.empty() ? std::string("standard input") : args.input) << ": read failed at line "
              << line_no + 1 << ": " << std::strerror(in.errno_value() ? in.errno_value() : EIO) << "\n";
    return 2;
  }
  if (write_failed()) return 2;
  if (Status st = output.Commit(); !st.ok()) {
    std::cerr << "tern: " << st.message() << "\n";
    return 2;
  }
  if (args.verbose) {
    const double sec = translate_ms / 1000.0;
    std::cerr << "tern: " << sentences << " sentences, " << tokens << " target tokens in " << translate_ms << " ms: "
              << (sec > 0 ? sentences / sec : 0) << " sentences/s, " << (sec > 0 ? tokens / sec : 0) << " tokens/s\n";
    std::cerr << "tern: peak RSS " << PeakRssMiB() << " MiB\n";
    if (t.threads() > 1)
      std::cerr << "tern: " << t.profile().single_thread_steps << " of " << t.profile().decoder_steps
                << " decoder steps ran on one thread (where the " << t.threads() << " threads were measured slower)\n";
  }
  if (args.profile) {
    PrintProfile(t.profile(), std::cerr);
    PrintFloor(*model.value(), t.profile(), std::cerr);
  }
  if (failed) std::cerr << "tern: " << failed << " of " << line_no << " lines failed\n";
  return failed ? 1 : 0;
}

}  // namespace tern::cli
