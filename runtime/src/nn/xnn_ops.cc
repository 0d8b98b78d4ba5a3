#include "nn/xnn_ops.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>


namespace tern {
namespace {

std::atomic<size_t> g_xnn_allocs{0};

void* XAlloc(void*, size_t size) {
  g_xnn_allocs.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size);
}
void* XRealloc(void*, void* p, size_t size) {
  g_xnn_allocs.fetch_add(1, std::memory_order_relaxed);
  return std::realloc(p, size);
}
void XFree(void*, void* p) { std::free(p); }
void* XAlignedAlloc(void*, size_t alignment, size_t size) {
  g_xnn_allocs.fetch_add(1, std::memory_order_relaxed);
  void* p = nullptr;
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
}
void XAlignedFree(void*, void* p) { std::free(p); }

const xnn_allocator kAllocator = {nullptr, XAlloc, XRealloc, XFree, XAlignedAlloc, XAlignedFree};

}  // namespace

Status XnnError(const char* what, xnn_status s) {
  return Status(StatusCode::kInternal, std::string("XNNPACK ") + what + " failed (xnn_status " + std::to_string(s) + ")");
}

Status InitXnnpack() {
  static std::once_flag once;
  static xnn_status status = xnn_status_uninitialized;
  std::call_once(once, [] { status = xnn_initialize(&kAllocator); });
  if (status == xnn_status_unsupported_hardware)
    return Status(StatusCode::kInternal, "XNNPACK does not support this CPU (x86 needs SSE2, ARM needs NEON)");
  return status == xnn_status_success ? Status::Ok() : XnnError("xnn_initialize", status);
}

size_t XnnpackAllocationCount() { return g_xnn_allocs.load(); }

ThreadPool MakeThreadPool(size_t threads) {
  return ThreadPool(threads > 1 ? pthreadpool_create(threads) : nullptr);
}

uint64_t QuantInputBytes(uint64_t rows, uint64_t cols) { return rows * cols + XNN_EXTRA_BYTES; }
uint64_t QuantParamsCount(uint64_t rows) { return rows + XNN_EXTRA_QUANTIZATION_PARAMS; }
uint64_t QuantChunkSumsCount(uint64_t rows, uint64_t cols) { return rows * ((cols + 31) / 32); }

}  // namespace tern
