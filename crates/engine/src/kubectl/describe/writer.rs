//! describe's output: a PrefixWriter over a Go `text/tabwriter` (minimum width 0, padding 2), as pkg/describe lays
//! out its sections.

/// describe's PrefixWriter over a tabwriter: text accumulates until a flush lays it out.
#[derive(Default)]
pub(super) struct Writer {
    out: String,
    buf: String,
}

impl Writer {
    /// `w.Write(level, ...)`: two spaces per level, then the text.
    pub(super) fn write(&mut self, level: usize, text: &str) {
        for _ in 0..level {
            self.buf.push_str("  ");
        }
        self.buf.push_str(text);
    }

    pub(super) fn flush(&mut self) {
        let text = std::mem::take(&mut self.buf);
        self.out.push_str(&tabwrite(&text, 0, 2));
    }

    pub(super) fn finish(mut self) -> String {
        self.flush();
        self.out
    }
}

/// Go's `text/tabwriter` with padding by spaces and no flags: cells are tab-terminated; a column block is a run of
/// consecutive lines that have a cell in that column, and its width is the widest cell plus `padding`.
pub(crate) fn tabwrite(text: &str, minwidth: usize, padding: usize) -> String {
    let lines: Vec<Vec<&str>> = text.split_terminator('\n').map(|l| l.split('\t').collect()).collect();
    let mut out = String::new();
    let mut widths = Vec::new();
    format_block(&lines, 0, lines.len(), &mut widths, minwidth, padding, &mut out);
    if !text.is_empty() && !text.ends_with('\n') {
        out.pop();
    }
    out
}

pub(super) fn format_block(
    lines: &[Vec<&str>],
    mut line0: usize,
    line1: usize,
    widths: &mut Vec<usize>,
    minwidth: usize,
    padding: usize,
    out: &mut String,
) {
    let column = widths.len();
    let mut this = line0;
    while this < line1 {
        if column + 1 >= lines[this].len() {
            this += 1;
            continue;
        }
        write_lines(lines, line0, this, widths, out);
        line0 = this;
        let mut width = minwidth;
        while this < line1 && column + 1 < lines[this].len() {
            width = width.max(lines[this][column].chars().count() + padding);
            this += 1;
        }
        widths.push(width);
        format_block(lines, line0, this, widths, minwidth, padding, out);
        widths.pop();
        line0 = this;
    }
    write_lines(lines, line0, line1, widths, out);
}

pub(super) fn write_lines(lines: &[Vec<&str>], line0: usize, line1: usize, widths: &[usize], out: &mut String) {
    for line in &lines[line0..line1] {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if j < widths.len() {
                let pad = widths[j].saturating_sub(cell.chars().count());
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push('\n');
    }
}
