//! Files that kubectl's `-f PATH` reads: the engine has no file system, the runner lends it one.

use std::path::Path;

/// Reads `name` (relative to `base`, unless absolute) as kubectl's `-f` does: a file, or the `.yaml`, `.yml` and
/// `.json` files of a directory in name order, as one multi-document stream. Errors are kubectl's messages.
pub fn read(base: &Path, name: &str) -> Result<String, String> {
    if name.starts_with("http://") || name.starts_with("https://") {
        return Err(format!("unable to read URL \"{name}\": kubeloop reads local files only"));
    }
    let path = base.join(name);
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("the path \"{name}\" does not exist"));
        }
        Err(e) => return Err(format!("open {name}: {e}")),
    };
    if !meta.is_dir() {
        return std::fs::read_to_string(&path).map_err(|e| format!("open {name}: {e}"));
    }
    let entries = std::fs::read_dir(&path).map_err(|e| format!("open {name}: {e}"))?;
    let mut files: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && matches!(p.extension().and_then(|x| x.to_str()), Some("yaml" | "yml" | "json")))
        .collect();
    files.sort();
    let mut docs = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("open {}: {e}", f.display()))?;
        docs.push(text);
    }
    let mut out = String::new();
    for d in docs {
        if !out.is_empty() {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("---\n");
        }
        out.push_str(&d);
    }
    Ok(out)
}

/// The directory a scenario file's relative paths start from.
pub fn dir_of(file: &str) -> &Path {
    match Path::new(file).parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_directories_read_like_kubectl() {
        let dir = std::env::temp_dir().join(format!("kubeloop-files-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join("d"));
        let _ = std::fs::write(dir.join("d/b.yaml"), "b: 2\n");
        let _ = std::fs::write(dir.join("d/a.yml"), "a: 1");
        let _ = std::fs::write(dir.join("d/notes.txt"), "not read");
        assert_eq!(read(&dir, "d/b.yaml"), Ok("b: 2\n".to_string()));
        assert_eq!(read(&dir, "d"), Ok("a: 1\n---\nb: 2\n".to_string()));
        assert_eq!(read(&dir, "nope.yaml"), Err("the path \"nope.yaml\" does not exist".to_string()));
        assert!(read(&dir, "https://example.com/x.yaml").is_err());
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(dir_of("web.yaml"), Path::new("."));
        assert_eq!(dir_of("examples/web.yaml"), Path::new("examples"));
    }
}
