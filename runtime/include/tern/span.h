// tern::Span: a pointer and a count, the view type of tern's public API.
#pragma once

#include <cstddef>

namespace tern {

/// A pointer and a count; views into memory owned by someone else.
template <typename T>
struct Span {
  T* data_ = nullptr;  ///< the first element
  size_t size_ = 0;    ///< elements
  Span() = default;
  /// n elements from d.
  Span(T* d, size_t n) : data_(d), size_(n) {}
  /// A whole array.
  template <size_t N>
  Span(T (&a)[N]) : data_(a), size_(N) {}  // NOLINT
  T* begin() const { return data_; }                   ///< the first element
  T* end() const { return data_ + size_; }             ///< one past the last
  T& operator[](size_t i) const { return data_[i]; }   ///< element i (unchecked)
  size_t size() const { return size_; }                ///< elements
  bool empty() const { return size_ == 0; }            ///< no elements
  T* data() const { return data_; }                    ///< the first element
};

}  // namespace tern
