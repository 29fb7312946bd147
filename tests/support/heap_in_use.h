// Bytes of the host heap in use, for the tests that check that warm frames
// allocate nothing (frame_heap_test.cpp, soak_test.cpp).
//
// Normal builds ask glibc (mallinfo2; the tests run with glibc's per-thread
// caches off, whose parked chunks it would count as in use). Under
// AddressSanitizer every malloc goes to ASan's allocator, which mallinfo2 does
// not see, so the sanitizer's own exact count is used instead (freed chunks
// waiting in its quarantine are not counted as in use).
#pragma once

#include <cstdint>

// PYRAMARCH_ASAN_RUNTIME: test code compiled without ASan in an ASan build
// (tests/CMakeLists.txt) still runs on ASan's allocator.
#if defined(__SANITIZE_ADDRESS__) || defined(PYRAMARCH_ASAN_RUNTIME)
#define PYRAMARCH_TEST_ASAN_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PYRAMARCH_TEST_ASAN_HEAP 1
#endif
#endif

#ifdef PYRAMARCH_TEST_ASAN_HEAP
#include <sanitizer/allocator_interface.h>
#else
#include <malloc.h>
#endif

namespace pyramarch::test {

inline uint64_t heapInUse() {
#ifdef PYRAMARCH_TEST_ASAN_HEAP
    return uint64_t(__sanitizer_get_current_allocated_bytes());
#else
    return uint64_t(mallinfo2().uordblks);
#endif
}

} // namespace pyramarch::test
