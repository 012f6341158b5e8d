//! CI's replay of the fuzzers' corpus (`fuzz/corpus/TARGET/`) and of every input that once failed
//! (`fuzz/regressions/TARGET/`), on the stable toolchain, in a debug build (overflow checks on): every input
//! must hold every oracle of [`kubeloop_hostile::check`].

use std::fs;
use std::path::{Path, PathBuf};

use kubeloop_hostile::{check, Target};

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

fn replay(target: Target, folder: &str) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz").join(folder).join(target.name());
    let files = inputs(&dir);
    for file in &files {
        let data = fs::read(file).expect("read an input");
        let result = std::panic::catch_unwind(|| check(target, &data));
        if let Err(e) = result {
            let why = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
            panic!("{}: {}", file.display(), why.unwrap_or_default());
        }
    }
    files.len()
}

fn corpus(target: Target) {
    let n = replay(target, "corpus");
    assert!(n >= 10, "fuzz/corpus/{} holds {n} inputs: the corpus is part of the repository", target.name());
    replay(target, "regressions");
}

#[test]
fn every_manifest_in_the_fuzz_corpus_and_regressions_holds_the_oracles() {
    corpus(Target::Manifest);
}

#[test]
fn every_kubectl_line_in_the_fuzz_corpus_and_regressions_holds_the_oracles() {
    corpus(Target::Kubectl);
}

#[test]
fn every_scenario_in_the_fuzz_corpus_and_regressions_holds_the_oracles() {
    corpus(Target::Scenario);
}

#[test]
fn every_quantity_in_the_fuzz_corpus_and_regressions_holds_the_oracles() {
    corpus(Target::Quantity);
}

#[test]
fn every_selector_in_the_fuzz_corpus_and_regressions_holds_the_oracles() {
    corpus(Target::Selector);
}

#[test]
fn every_duration_in_the_fuzz_corpus_and_regressions_holds_the_oracles() {
    corpus(Target::Duration);
}
