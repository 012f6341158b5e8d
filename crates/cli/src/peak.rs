//! Peak live bytes, counted by a global allocator: the bytes a piece of work held at most at once (every
//! allocation it made and had not yet freed), on the thread that ran it. The engine cannot see its allocations; the
//! binary that measures it installs [`Counting`] (`kubeloop bench`, and the work budget's test, which includes this
//! file). Counting is per thread and only while [`measure`] runs, so other threads (a test harness's) and the
//! bytes held before it started do not count. The figure is exact: the same allocations in the same order give the
//! same bytes, whatever the machine (the sizes asked for are counted, not what the system allocator rounds them
//! to). `kubeloop bench --memory` also reads the live bytes ([`live`]) as it takes the simulation apart inside the
//! same measurement, to say what each structure held.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting the bytes asked for on a thread that is measuring.
pub struct Counting;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    /// Bytes allocated minus bytes freed since the measurement began (negative when it frees older memory).
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn count(delta: i64) {
    let _ = ON.try_with(|on| {
        if on.get() {
            let live = LIVE.with(|l| {
                l.set(l.get() + delta);
                l.get()
            });
            PEAK.with(|p| p.set(p.get().max(live)));
        }
    });
}

fn size(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

// SAFETY: every call is passed to the system allocator unchanged; the counting touches only thread-local cells
// initialised without allocating.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is the system allocator's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(size(layout.size()));
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(size(layout.size()));
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) };
        count(-size(layout.size()));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(size(new_size) - size(layout.size()));
        }
        p
    }
}

/// Bytes this thread has allocated and not freed since the running [`measure`] began (negative when it has freed
/// more than it allocated).
pub fn live() -> i64 {
    LIVE.with(|l| l.get())
}

/// Runs `work` on this thread and returns what it returned with the most bytes it held at once (0 when it held
/// none beyond what was live before it), counted only if [`Counting`] is the global allocator.
pub fn measure<T>(work: impl FnOnce() -> T) -> (T, u64) {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    ON.with(|on| on.set(true));
    let out = work();
    ON.with(|on| on.set(false));
    let peak = PEAK.with(|p| p.get());
    (out, u64::try_from(peak).unwrap_or(0))
}
