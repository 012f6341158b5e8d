//! Prints what an input stands for (`hostile-gen TARGET FILE`), or `hostile-gen TARGET --sample N` samples of
//! the generator from a fixed seed, to look at what the fuzzers write; `hostile-gen TARGET --seeds DIR` writes
//! seed inputs for the target's corpus (its value pools as raw text, and generated inputs).

use kubeloop_hostile::{generate, Target};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(target) = args.first().and_then(|n| Target::ALL.iter().copied().find(|t| t.name() == n)) else {
        eprintln!("usage: hostile-gen TARGET (FILE | --sample N)   (targets: manifest kubectl scenario quantity selector duration)");
        std::process::exit(2);
    };
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut generated = move || {
        let mut data = vec![0u8];
        for _ in 0..400 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            data.push(x as u8);
        }
        data
    };
    match args.get(1).map(String::as_str) {
        Some("--sample") => {
            let n: u64 = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(5);
            for i in 0..n {
                println!("=== sample {i}\n{}", target.text(&generated()));
            }
        }
        Some("--seeds") => {
            let Some(dir) = args.get(2) else {
                eprintln!("usage: hostile-gen TARGET --seeds DIR");
                std::process::exit(2);
            };
            let dir = std::path::Path::new(dir);
            std::fs::create_dir_all(dir).expect("create the seed folder");
            let pool: &[&str] = match target {
                Target::Quantity => generate::QUANTITIES,
                Target::Duration => generate::DURATIONS,
                Target::Selector => &["app=web", "tier in (a,b)", "!canary", "a,b!=c", "x notin (y)", "k8s.io/n==v"],
                _ => &[],
            };
            for (i, v) in pool.iter().chain(generate::NUMBERS).chain(generate::TEXTS).enumerate() {
                std::fs::write(dir.join(format!("seed-pool-{i}")), v).expect("write a seed");
            }
            for i in 0..32 {
                std::fs::write(dir.join(format!("seed-generated-{i}")), generated()).expect("write a seed");
            }
        }
        Some(file) => {
            let data = std::fs::read(file).unwrap_or_else(|e| {
                eprintln!("{file}: {e}");
                std::process::exit(1)
            });
            print!("{}", target.text(&data));
        }
        None => {
            eprintln!("usage: hostile-gen TARGET (FILE | --sample N)");
            std::process::exit(2);
        }
    }
}
