// chain.rs - test target: chain.c's call chain in Rust,
//
//   main -> level_one -> level_two -> level_three -> leaf_spin
//
//   chain [SECONDS]    print "ready", burn CPU for SECONDS (default 30),
//                      exit 0; or until killed.
//
// Built by tests/lld-rust.test with rustc, linked by lld.  #[no_mangle]
// gives the functions plain names; #[inline(never)] keeps them; the
// atomic add after each call keeps it from becoming a tail call (which
// would drop the caller's frame).  Standard library only, and nothing
// newer than Debian 12's rustc (1.63): no std::hint::black_box.
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

static SINK: AtomicU64 = AtomicU64::new(1);

#[no_mangle]
#[inline(never)]
fn leaf_spin() {
    let mut x = SINK.load(Ordering::Relaxed);
    for _ in 0..50000u32 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
    }
    SINK.store(x, Ordering::Relaxed);
}

#[no_mangle]
#[inline(never)]
fn level_three() {
    leaf_spin();
    SINK.fetch_add(1, Ordering::Relaxed);
}

#[no_mangle]
#[inline(never)]
fn level_two() {
    level_three();
    SINK.fetch_add(1, Ordering::Relaxed);
}

#[no_mangle]
#[inline(never)]
fn level_one() {
    level_two();
    SINK.fetch_add(1, Ordering::Relaxed);
}

fn main() {
    let secs = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(30.0);
    let end = Instant::now() + Duration::from_secs_f64(secs);

    println!("ready");
    while Instant::now() < end {
        level_one();
    }
}
