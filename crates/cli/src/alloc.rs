//! The runner's global allocator: the system's, counting the bytes it has handed out and not yet taken back (live
//! bytes) and the most that were ever live at once. `kubeloop bench` reads them to say what the engine holds,
//! structure by structure (the engine's footprint in bytes), which resident memory alone cannot tell: it also holds
//! the allocator's free lists and fragments.
//!
//! Counted with relaxed atomics: the runner is single-threaded, and the counts are read between allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counted.
pub struct Counting {
    live: AtomicUsize,
    peak: AtomicUsize,
}

impl Counting {
    pub const fn new() -> Self {
        Counting { live: AtomicUsize::new(0), peak: AtomicUsize::new(0) }
    }

    /// Bytes allocated and not yet freed (as requested: the allocator's own rounding and headers are not in it).
    pub fn live(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    /// The most bytes that were live at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    fn grew(&self, by: usize) {
        let now = self.live.fetch_add(by, Ordering::Relaxed) + by;
        if now > self.peak.load(Ordering::Relaxed) {
            self.peak.store(now, Ordering::Relaxed);
        }
    }

    fn shrank(&self, by: usize) {
        self.live.fetch_sub(by, Ordering::Relaxed);
    }
}

// SAFETY: every call is the system allocator's own, with the caller's arguments; the counting only reads sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        self.shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size >= layout.size() {
                self.grew(new_size - layout.size());
            } else {
                self.shrank(layout.size() - new_size);
            }
        }
        p
    }
}
