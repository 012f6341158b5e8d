//! kubectl's column output: cells separated by tabs go through a tabwriter with minimum width 6, padding 3 and
//! remembered widths (k8s.io/cli-runtime printers.GetNewTabWriter), so `get -w` rows line up with the table
//! printed first when they fit.

/// A table being printed. Widths only grow.
#[derive(Clone, Debug, Default)]
pub struct Table {
    widths: Vec<usize>,
}

const MIN_WIDTH: usize = 6;
const PADDING: usize = 3;

impl Table {
    pub fn new() -> Self {
        Table::default()
    }

    /// Formats `rows` (the header is just the first row), widening the columns as needed. The last cell of a
    /// row is not padded; lines end with `\n` and carry no trailing spaces.
    pub fn render(&mut self, rows: &[Vec<String>]) -> String {
        for r in rows {
            // A row's last cell is not a column (tabwriter only aligns cells terminated by a tab).
            for (i, c) in r.iter().enumerate().take(r.len().saturating_sub(1)) {
                let w = (c.chars().count() + PADDING).max(MIN_WIDTH);
                if i >= self.widths.len() {
                    self.widths.push(w);
                } else if self.widths[i] < w {
                    self.widths[i] = w;
                }
            }
        }
        let mut out = String::new();
        for r in rows {
            let mut line = String::new();
            for (i, c) in r.iter().enumerate() {
                line.push_str(c);
                if i + 1 < r.len() {
                    let pad = self.widths[i] - c.chars().count();
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Formats `rows` as one table.
pub fn render(rows: &[Vec<String>]) -> String {
    Table::new().render(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn columns_pad_by_three_with_a_minimum_of_six() {
        let out = render(&[
            row(&["NAME", "READY", "STATUS", "RESTARTS", "AGE"]),
            row(&["web-7d4b9c8f5-x2x9k", "1/1", "Running", "0", "5m"]),
        ]);
        assert_eq!(
            out,
            "NAME                  READY   STATUS    RESTARTS   AGE\n\
             web-7d4b9c8f5-x2x9k   1/1     Running   0          5m\n"
        );
        assert_eq!(render(&[row(&["A", "B"]), row(&["x", ""])]), "A     B\nx\n");
    }

    #[test]
    fn widths_are_remembered_between_renders() {
        let mut t = Table::new();
        let _ = t.render(&[row(&["NAME", "AGE"]), row(&["a-long-name", "1s"])]);
        assert_eq!(t.render(&[row(&["b", "2s"])]), format!("b{}2s\n", " ".repeat(13)));
    }
}
