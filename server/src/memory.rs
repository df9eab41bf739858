//! How the process hands memory back to the operating system.
//!
//! The server binary's own allocations go through jemalloc (`main.rs`), which gives large
//! buffers back by itself; what still allocates through the C library (SQLite's C code)
//! keeps the setting below. Its reason, from before jemalloc: glibc's allocator raises its
//! mmap threshold after the first large buffer is freed, so later large buffers come from
//! the heap — and every Argon2id hash (19 MiB) then left its
//! memory behind, fragmented: 32 sign-ups one after another took the server from 20 MB to
//! 327 MB (measured on the release build). A fixed threshold of 1 MiB keeps large, short-lived
//! buffers in mmap, returned when freed: the same 32 sign-ups peak at 36 MB and settle at 17 MB.

/// Fixes glibc's mmap threshold at 1 MiB, for what allocates through glibc rather than
/// jemalloc (SQLite's C code; on Linux with glibc, nothing elsewhere).
pub fn return_large_buffers_to_the_os() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it is safe to call at any time.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}
