//! Files that kubeloop reads: scenario files, and what kubectl's `-f PATH` reads (the engine has no file system,
//! the runner lends it one).
//!
//! Every file is a regular file (not a FIFO, a device or a directory: reading those could block or never end) of
//! at most [`MAX_YAML_BYTES`], checked before it is opened and again while it is read (a file that grows meanwhile
//! is cut off and refused). A scenario's `-f PATH` reads only inside the scenario's own folder: a relative path
//! that stays there, symbolic links resolved.

use std::cell::Cell;
use std::fs::File;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use kubeloop_engine::limits::{echo, MAX_FILE_BYTES_PER_RUN, MAX_YAML_BYTES, MAX_YAML_DOCUMENTS};

/// `4194304 bytes (4.0 MiB)`
fn bytes(n: u64) -> String {
    format!("{n} bytes ({:.1} MiB)", n as f64 / (1024.0 * 1024.0))
}

/// Opens `path` for reading without blocking on a FIFO (the check that follows refuses it).
fn open(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Why a file was not read.
enum Unread {
    NotRegular,
    TooBig(u64),
    Io(String),
    NotText,
}

impl Unread {
    /// The message, about the file `name` (`None`: the subject is already said).
    fn message(&self, name: Option<&str>, max: usize) -> String {
        let subject = name.map_or_else(|| "it".to_string(), |n| format!("\"{}\"", echo(n)));
        match self {
            Unread::NotRegular => format!(
                "{} is not a regular file: kubeloop reads regular files only (not directories, FIFOs or devices)",
                name.map_or("it".to_string(), |n| format!("\"{}\"", echo(n)))
            ),
            Unread::TooBig(n) => {
                format!("{subject} is {}: kubeloop reads at most {} from one file", bytes(*n), bytes(max as u64))
            }
            Unread::Io(e) => match name {
                Some(n) => format!("open {}: {e}", echo(n)),
                None => e.clone(),
            },
            Unread::NotText => format!("{subject} is not UTF-8 text"),
        }
    }
}

/// Reads a regular file of at most `max` bytes: its metadata is checked before it is opened, the opened file is
/// checked again (it may have been replaced in between), and the read stops at `max + 1` bytes whatever the
/// metadata said (a file that grows meanwhile is refused).
fn read_regular(path: &Path, max: usize) -> Result<String, Unread> {
    let io = |e: std::io::Error| Unread::Io(e.to_string());
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(Unread::NotRegular);
    }
    if meta.len() > max as u64 {
        return Err(Unread::TooBig(meta.len()));
    }
    let file = open(path).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(Unread::NotRegular);
    }
    let mut data = Vec::new();
    file.take(max as u64 + 1).read_to_end(&mut data).map_err(io)?;
    if data.len() > max {
        return Err(Unread::TooBig(data.len() as u64));
    }
    String::from_utf8(data).map_err(|_| Unread::NotText)
}

/// A file of kubectl's `-f`, named `name` in messages.
fn read_manifest_file(path: &Path, name: &str) -> Result<String, String> {
    read_regular(path, MAX_YAML_BYTES).map_err(|u| u.message(Some(name), MAX_YAML_BYTES))
}

/// Where `-f PATH` reads.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// A scenario's actions: only inside this folder, by a relative path that stays there.
    Inside(&'a Path),
    /// The user's own command line: relative to this folder, or absolute.
    From(&'a Path),
}

/// Reads the files of kubectl's `-f PATH`, within a [`Scope`] and, over a run, at most [`MAX_FILE_BYTES_PER_RUN`].
pub struct Reader<'a> {
    scope: Scope<'a>,
    /// Bytes read so far.
    read: Cell<u64>,
}

impl<'a> Reader<'a> {
    pub fn new(scope: Scope<'a>) -> Self {
        Reader { scope, read: Cell::new(0) }
    }

    /// Reads `name` as kubectl's `-f` does: a file, or the `.yaml`, `.yml` and `.json` files of a directory in name
    /// order, as one multi-document stream of at most [`MAX_YAML_BYTES`]. Errors are kubectl's messages, or say
    /// which of kubeloop's rules the path breaks.
    pub fn read(&self, name: &str) -> Result<String, String> {
        if name.starts_with("http://") || name.starts_with("https://") {
            return Err(format!("unable to read URL \"{}\": kubeloop reads local files only", echo(name)));
        }
        let path = self.resolve(name)?;
        let meta = std::fs::metadata(&path).map_err(|e| format!("open {}: {e}", echo(name)))?;
        let text = if meta.is_dir() { self.read_dir(name, &path)? } else { read_manifest_file(&path, name)? };
        let total = self.read.get().saturating_add(text.len() as u64);
        if total > MAX_FILE_BYTES_PER_RUN as u64 {
            return Err(format!(
                "\"{}\": kubeloop reads at most {} of files in one run",
                echo(name),
                bytes(MAX_FILE_BYTES_PER_RUN as u64)
            ));
        }
        self.read.set(total);
        Ok(text)
    }

    /// The path `name` names, checked against the scope; kubectl's "does not exist" when it does not.
    fn resolve(&self, name: &str) -> Result<PathBuf, String> {
        let missing = || format!("the path \"{}\" does not exist", echo(name));
        match self.scope {
            Scope::From(base) => {
                let path = base.join(name);
                if std::fs::symlink_metadata(&path).is_err() {
                    return Err(missing());
                }
                Ok(path)
            }
            Scope::Inside(folder) => {
                if Path::new(name).is_absolute() {
                    return Err(format!(
                        "the path \"{}\" is absolute: a scenario reads files in its own folder only, by a relative path",
                        echo(name)
                    ));
                }
                // `..` that climbs out of the folder, whether or not the path exists.
                let mut depth = 0usize;
                for c in Path::new(name).components() {
                    match c {
                        std::path::Component::ParentDir if depth == 0 => return Err(outside(name)),
                        std::path::Component::ParentDir => depth -= 1,
                        std::path::Component::Normal(_) => depth += 1,
                        _ => {}
                    }
                }
                let path = folder.join(name);
                if std::fs::symlink_metadata(&path).is_err() {
                    return Err(missing());
                }
                inside(folder, &path, name)
            }
        }
    }

    /// The `.yaml`, `.yml` and `.json` files of a directory, in name order, as one stream.
    fn read_dir(&self, name: &str, dir: &Path) -> Result<String, String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("open {}: {e}", echo(name)))?;
        let mut files = Vec::new();
        for entry in entries.flatten() {
            let p = entry.path();
            if !matches!(p.extension().and_then(|x| x.to_str()), Some("yaml" | "yml" | "json")) {
                continue;
            }
            files.push(p);
            if files.len() > MAX_YAML_DOCUMENTS {
                return Err(format!(
                    "\"{}\" has more than {MAX_YAML_DOCUMENTS} manifest files: kubeloop's budget for one -f",
                    echo(name)
                ));
            }
        }
        files.sort();
        let mut out = String::new();
        for f in files {
            let shown = f.display().to_string();
            let f = match self.scope {
                Scope::Inside(folder) => inside(folder, &f, &shown)?,
                Scope::From(_) => f,
            };
            if std::fs::metadata(&f).is_ok_and(|m| m.is_dir()) {
                continue; // `x.yaml/`: kubectl without -R does not go into directories
            }
            let text = read_manifest_file(&f, &shown)?;
            if !out.is_empty() {
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str("---\n");
            }
            out.push_str(&text);
            if out.len() > MAX_YAML_BYTES {
                return Err(format!(
                    "the files of \"{}\" are too long together: kubeloop reads at most {} from one -f",
                    echo(name),
                    bytes(MAX_YAML_BYTES as u64)
                ));
            }
        }
        Ok(out)
    }
}

fn outside(name: &str) -> String {
    format!(
        "the path \"{}\" is outside the scenario's folder: a scenario reads files in its own folder only",
        echo(name)
    )
}

/// `path`, resolved (symbolic links and `..`), if it is inside `folder`; `name` is how the user wrote it.
fn inside(folder: &Path, path: &Path, name: &str) -> Result<PathBuf, String> {
    let root = folder.canonicalize().map_err(|e| format!("open {}: {e}", folder.display()))?;
    let real = path.canonicalize().map_err(|e| format!("open {}: {e}", echo(name)))?;
    if real.starts_with(&root) {
        Ok(real)
    } else {
        Err(outside(name))
    }
}

/// Reads a scenario file: a regular file of at most [`MAX_YAML_BYTES`]. The message does not repeat the name.
pub fn read_scenario(file: &str) -> Result<String, String> {
    read_regular(Path::new(file), MAX_YAML_BYTES).map_err(|u| u.message(None, MAX_YAML_BYTES))
}

/// Reads standard input (`-f -`): at most [`MAX_YAML_BYTES`].
pub fn read_stdin() -> Result<String, String> {
    let mut data = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_YAML_BYTES as u64 + 1)
        .read_to_end(&mut data)
        .map_err(|e| format!("reading standard input: {e}"))?;
    if data.len() > MAX_YAML_BYTES {
        return Err(format!(
            "standard input is too long: kubeloop reads at most {} of it",
            bytes(MAX_YAML_BYTES as u64)
        ));
    }
    String::from_utf8(data).map_err(|_| "standard input is not UTF-8 text".to_string())
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
        for r in [Reader::new(Scope::Inside(&dir)), Reader::new(Scope::From(&dir))] {
            assert_eq!(r.read("d/b.yaml"), Ok("b: 2\n".to_string()));
            assert_eq!(r.read("d"), Ok("a: 1\n---\nb: 2\n".to_string()));
            assert_eq!(r.read("nope.yaml"), Err("the path \"nope.yaml\" does not exist".to_string()));
            assert!(r.read("https://example.com/x.yaml").is_err());
        }
        let inside = Reader::new(Scope::Inside(&dir));
        assert!(inside.read("..").is_err_and(|e| e.contains("outside the scenario's folder")));
        assert!(inside.read("d/../../x").is_err_and(|e| e.contains("outside the scenario's folder")));
        assert_eq!(inside.read("d/../d/b.yaml"), Ok("b: 2\n".to_string()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(dir_of("web.yaml"), Path::new("."));
        assert_eq!(dir_of("examples/web.yaml"), Path::new("examples"));
    }

    #[test]
    fn a_run_reads_a_bounded_total() {
        let dir = std::env::temp_dir().join(format!("kubeloop-files-total-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("big.yaml"), "#".repeat(MAX_YAML_BYTES));
        let r = Reader::new(Scope::Inside(&dir));
        let times = MAX_FILE_BYTES_PER_RUN / MAX_YAML_BYTES;
        for _ in 0..times {
            assert!(r.read("big.yaml").is_ok());
        }
        let e = r.read("big.yaml").expect_err("over the run's budget");
        assert!(e.contains("of files in one run"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
