#include "search/token_stream.h"

#include "text/tokenizer.h"

namespace tern {

void TokenStream::Begin(const TranslateOptions& o, const Tokenizer* tokenizer, char* text, size_t stride,
                        size_t text_bytes, uint32_t* emitted, const uint32_t* order, const Origin* origins) {
  callback_ = o.on_token;
  user_data_ = o.on_token_user_data;
  abort_ = o.abort;
  abort_data_ = o.abort_user_data;
  tokenizer_ = tokenizer;
  text_ = text;
  stride_ = stride;
  text_bytes_ = text_bytes;
  emitted_ = emitted;
  order_ = order;
  origins_ = origins;
  stopped_ = false;
}

void TokenStream::Token(size_t b, uint32_t token, float logprob, const uint32_t* ids, size_t n, bool last) {
  if (!callback_ || stopped_) return;
  const size_t input = order_[b];
  char* buf = text_ + input * stride_;
  const size_t len = tokenizer_->Decode(ids, n, buf, text_bytes_);
  size_t safe = len;
  if (!last) {  // up to the last space: what follows may still change
    safe = 0;
    for (size_t i = len; i > 0; --i)
      if (buf[i - 1] == ' ') {
        safe = i - 1;
        break;
      }
  }
  TokenEvent e;
  if (origins_) {
    e.index = origins_[input].index;
    e.part = origins_[input].part;
    e.parts = origins_[input].parts;
  } else {
    e.index = input;
  }
  e.token = token;
  e.logprob = logprob;
  if (safe > emitted_[input]) {
    e.text = std::string_view(buf + emitted_[input], safe - emitted_[input]);
    emitted_[input] = static_cast<uint32_t>(safe);
  }
  e.last = last;
  if (!callback_(e, user_data_)) stopped_ = true;
}

void TokenStream::Hypothesis(size_t b, const uint32_t* ids, const float* logprobs, size_t n, uint32_t final_token) {
  if (!callback_) return;
  if (n == 0) return Token(b, final_token, logprobs[0], ids, 0, true);
  for (size_t k = 1; k <= n && !stopped_; ++k) {
    const bool last = k == n;
    Token(b, ids[k - 1], logprobs[k - 1], ids, k, last && final_token == ids[k - 1]);
    if (last && final_token != ids[k - 1] && !stopped_) Token(b, final_token, logprobs[n], ids, n, true);
  }
}

bool TokenStream::Stopped() {
  if (!stopped_ && abort_ && abort_(abort_data_)) stopped_ = true;
  return stopped_;
}

}  // namespace tern
