// names.rs - test target: a hot Rust function in a module, by path.
//
//   main -> spin::outer -> spin::Burner::hot
//
//   names [SECONDS]    print "ready", burn CPU for SECONDS (default 30),
//                      exit 0.
//
// Built by tests/rust-names.test with rustc, once with the legacy symbol
// mangling (rustc's default) and once with -C symbol-mangling-version=v0:
// the hot function must read `names::spin::Burner::hot` (legacy) or
// `<names::spin::Burner>::hot` (v0), without a hash, in ptprof's report.
// Standard library only, nothing newer than Debian 12's rustc (1.63).
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

static SINK: AtomicU64 = AtomicU64::new(1);

mod spin {
    use super::{Ordering, SINK};

    pub struct Burner {
        pub rounds: u32,
    }

    impl Burner {
        #[inline(never)]
        pub fn hot(&self) {
            let mut x = SINK.load(Ordering::Relaxed);
            for _ in 0..self.rounds {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
            }
            SINK.store(x, Ordering::Relaxed);
        }
    }

    #[inline(never)]
    pub fn outer(b: &Burner) {
        b.hot();
        SINK.fetch_add(1, Ordering::Relaxed);
    }
}

fn main() {
    let secs = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(30.0);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let b = spin::Burner {
        rounds: 50000 + (SINK.load(Ordering::Relaxed) as u32 & 1),
    };

    println!("ready");
    while Instant::now() < end {
        spin::outer(&b);
    }
}
