// inl - Rust test target for inlined frames (issue 29): the hot loop
// mix() is #[inline(always)], inlined into outer() (#[inline(never)]),
// called from main().  Built -O -g by tests/inline-rust.test.
//
//   inl_rs [SECONDS]   burn about SECONDS of CPU time (default 3; rounds,
//                      not a clock: 30 s more of wall time at most),
//                      print the result, exit 0.
use std::hint::black_box;
use std::time::{Duration, Instant};

#[inline(always)]
fn mix(mut x: u64, n: u32) -> u64 {
    for _ in 0..n {
        x ^= x >> 31;
        x = x.wrapping_mul(0x7fb5d329728ea185);
        x ^= x >> 27;
    }
    x
}

#[inline(never)]
fn outer(seed: u64) -> u64 {
    let x = mix(black_box(seed), black_box(1_000_000));
    black_box(x)
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let end = Instant::now() + Duration::from_secs_f64(secs + 30.0);
    // one round of outer: ~1e6 iterations, ~2 ms
    let rounds = (secs * 450.0) as u64;
    let mut x = 1u64;
    let mut r = 0;
    while r < rounds && Instant::now() < end {
        x = outer(x.wrapping_add(r));
        r += 1;
    }
    println!("{}", x);
}
