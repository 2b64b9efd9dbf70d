// An allocator for objects the simulator makes and drops by the thousand per run (registers
// with their shared_ptr control block, the pipe model's run-map nodes): a per-thread free list
// of same-size blocks, so a steady loop costs no malloc/free (VReg's 64-byte alignment would
// otherwise go through aligned new as well). A list keeps at most kMaxFree blocks per type;
// the rest go back to the heap. Blocks of several objects are not pooled.
#pragma once

#include <cstddef>
#include <new>

namespace opdev::sim {

template <typename T>
struct FreeListAlloc {
  using value_type = T;
  static constexpr size_t kMaxFree = 512;
  static constexpr std::align_val_t kAlign{alignof(T) > 16 ? alignof(T) : 16};

  FreeListAlloc() = default;
  template <typename U>
  FreeListAlloc(const FreeListAlloc<U>&) {}  // NOLINT: rebinding

  struct FreeList {
    void* head = nullptr;
    size_t n = 0;
    ~FreeList() {
      while (head) {
        void* next = *static_cast<void**>(head);
        ::operator delete(head, kAlign);
        head = next;
      }
    }
  };
  static FreeList& List() {
    thread_local FreeList list;
    return list;
  }

  T* allocate(size_t n) {
    FreeList& l = List();
    if (n == 1 && l.head) {
      void* p = l.head;
      l.head = *static_cast<void**>(p);
      --l.n;
      return static_cast<T*>(p);
    }
    return static_cast<T*>(::operator new(n * sizeof(T), kAlign));
  }
  void deallocate(T* p, size_t n) {
    FreeList& l = List();
    if (n == 1 && l.n < kMaxFree) {
      *reinterpret_cast<void**>(p) = l.head;
      l.head = p;
      ++l.n;
      return;
    }
    ::operator delete(p, kAlign);
  }
  template <typename U>
  bool operator==(const FreeListAlloc<U>&) const { return true; }
};

}  // namespace opdev::sim
