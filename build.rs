//! Lists the lesson files for the page: every `examples/lessons/*.yaml` is a lesson (a new lesson is one new file).
//! The lesson bar needs each lesson's title, label and place at first paint: they are read here from the file's
//! `lesson:` header. The files themselves are not in the page's download (docs/size.md): trunk copies them into the
//! site and the page fetches them once it runs. Native builds (the page's tests) carry the texts.

use std::fmt::Write as _;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/lessons");
    println!("cargo:rerun-if-changed={}", dir.display());
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/lessons")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let mut lessons = Vec::new();
    for p in &files {
        println!("cargo:rerun-if-changed={}", p.display());
        let id = p.file_stem().and_then(|s| s.to_str()).expect("a lesson file's name is text").to_string();
        let text = std::fs::read_to_string(p).expect("a lesson file");
        let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let header = &doc["lesson"];
        let title = header["title"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: a lesson needs `lesson:` with a `title:`", p.display()))
            .trim()
            .to_string();
        let short = header["short"].as_str().map_or_else(|| title.clone(), |s| s.trim().to_string());
        let order = header["order"].as_u64().map_or(u32::MAX, |o| o.min(u64::from(u32::MAX)) as u32);
        lessons.push((order, id, title, short, p.display().to_string()));
    }
    lessons.sort();
    let mut out = String::from(
        "/// Every lesson in the lesson bar's order: `(id, title, short)` (read from each file's `lesson:`).\n\
         pub const LESSONS: &[(&str, &str, &str)] = &[\n",
    );
    for (_, id, title, short, _) in &lessons {
        writeln!(out, "    ({id:?}, {title:?}, {short:?}),").expect("write");
    }
    out.push_str(
        "];\n/// The lesson files' texts, where the build carries them (native builds; the page fetches them).\n",
    );
    out.push_str("pub const TEXTS: &[(&str, &str)] = &[\n");
    for (_, id, _, _, path) in lessons.iter().filter(|_| !wasm) {
        writeln!(out, "    ({id:?}, include_str!({path:?})),").expect("write");
    }
    out.push_str("];\n");
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("lessons.rs");
    std::fs::write(dest, out).expect("write lessons.rs");
}
