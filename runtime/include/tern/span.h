// tern::Span: a pointer and a count, the view type of tern's public API.
#pragma once

#include <cstddef>

namespace tern {

/// A pointer and a count; views into memory owned by someone else.
template <typename T>
struct Span {
  T* data_ = nullptr;
  size_t size_ = 0;
  Span() = default;
  Span(T* d, size_t n) : data_(d), size_(n) {}
  template <size_t N>
  Span(T (&a)[N]) : data_(a), size_(N) {}  // NOLINT
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }
  T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() const { return data_; }
};

}  // namespace tern
