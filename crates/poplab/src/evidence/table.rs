//! CSV tables as poplab writes them (a time series of `run --trace`, a sweep's `summary.csv` or
//! `estimates.csv`), read back into named columns of text, with numbers read per cell.
//!
//! Every defect of the file (not UTF-8, a row with more or fewer fields than the header, a cell
//! that is not a number) is an [`Error::File`] naming the file, the line and what is wrong.
//!
//! ```
//! use poplab::table::Table;
//!
//! let table = Table::parse(b"trial,step,parallel_time,leaders\n0,10,0.1,5\n", "t.csv").unwrap();
//! assert_eq!(table.rows(), 1);
//! assert_eq!(table.number(0, "leaders").unwrap(), Some(5.0));
//! let torn = Table::parse(b"a,b\n1,2\n3\n", "t.csv").unwrap_err().to_string();
//! assert_eq!(torn, "'t.csv' line 3: 1 field where the header has 2; every row needs one value per column");
//! ```

use crate::error::{Error, Result};
use std::path::Path;

/// A CSV file's header and rows, every row as long as the header.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    path: String,
    header: Vec<String>,
    /// Each row's fields and its line in the file (1-based; the header is line 1 unless a quoted
    /// field spans lines).
    rows: Vec<(Vec<String>, u64)>,
}

impl Table {
    /// Reads the CSV file at `path`.
    pub fn read(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path)
            .map_err(|e| Error::File { path: path.display().to_string(), reason: format!("cannot be read ({e})") })?;
        Self::parse(&bytes, &path.display().to_string())
    }

    /// A table from the bytes of a CSV file named `path` (for messages).
    pub fn parse(bytes: &[u8], path: &str) -> Result<Self> {
        let fail = |line: u64, reason: String| Error::File {
            path: path.to_string(),
            reason: format!("line {line}: {reason}"),
        };
        let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes);
        let mut header: Option<Vec<String>> = None;
        let mut rows = Vec::new();
        let mut record = csv::ByteRecord::new();
        loop {
            let line = reader.position().line();
            match reader.read_byte_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => return Err(fail(line, format!("is not CSV ({e})"))),
            }
            let line = record.position().map_or(line, csv::Position::line);
            let fields = record
                .iter()
                .enumerate()
                .map(|(i, field)| {
                    std::str::from_utf8(field)
                        .map(str::to_string)
                        .map_err(|_| fail(line, format!("field {} is not UTF-8 text; give a CSV file", i + 1)))
                })
                .collect::<Result<Vec<_>>>()?;
            match &header {
                None => header = Some(fields),
                Some(header) if header.len() != fields.len() => {
                    let plural = if fields.len() == 1 { "" } else { "s" };
                    return Err(fail(
                        line,
                        format!(
                            "{} field{plural} where the header has {}; every row needs one value per column",
                            fields.len(),
                            header.len()
                        ),
                    ));
                }
                Some(_) => rows.push((fields, line)),
            }
        }
        let header = header.ok_or_else(|| Error::File {
            path: path.to_string(),
            reason: "is empty; give a CSV file with a header".into(),
        })?;
        Ok(Table { path: path.to_string(), header, rows })
    }

    /// The column names.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// How many rows follow the header.
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// The text in row `row` (from 0) under `column`, trimmed; an error if there is no such
    /// column. Panics if `row` is out of range.
    pub fn text(&self, row: usize, column: &str) -> Result<&str> {
        let at = self.header.iter().position(|c| c == column).ok_or_else(|| Error::File {
            path: self.path.clone(),
            reason: format!("has no column {column}; its columns: {}", self.header.join(", ")),
        })?;
        Ok(self.rows[row].0[at].trim())
    }

    /// The number in row `row` under `column`: `None` for an empty cell, an error if the text is
    /// not a number or is a non-zero number too small to be normal (below 2.2e-308, which no
    /// poplab output holds and no axis can show).
    pub fn number(&self, row: usize, column: &str) -> Result<Option<f64>> {
        let text = self.text(row, column)?;
        if text.is_empty() {
            return Ok(None);
        }
        let line = self.rows[row].1;
        let fail = |why: &str| Error::File {
            path: self.path.clone(),
            reason: format!("line {line}: {column} = '{text}' {why}"),
        };
        let value: f64 = text.parse().map_err(|_| fail("is not a number"))?;
        if value.is_subnormal() {
            return Err(fail("is too close to 0 (a non-zero value must be at least 2.2e-308 in size)"));
        }
        Ok(Some(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(bytes: &[u8]) -> String {
        Table::parse(bytes, "t.csv").unwrap_err().to_string()
    }

    #[test]
    fn columns_by_name_and_numbers_per_cell() {
        let table = Table::parse(b"n,mean\n10, 2.5\n20,\n", "t.csv").unwrap();
        assert_eq!(table.header(), ["n", "mean"]);
        assert_eq!(table.rows(), 2);
        assert_eq!(table.number(0, "mean").unwrap(), Some(2.5));
        assert_eq!(table.number(1, "mean").unwrap(), None);
        assert_eq!(table.number(1, "n").unwrap(), Some(20.0));
        assert!(table.number(0, "x").unwrap_err().to_string().contains("has no column x; its columns: n, mean"));
    }

    #[test]
    fn malformed_files_name_the_line_and_the_defect() {
        assert_eq!(
            message(b"a,b\n1,2\n1,2,3\n"),
            "'t.csv' line 3: 3 fields where the header has 2; every row needs one value per column"
        );
        assert!(
            message(b"a,b\n1,\xff\n").starts_with("'t.csv' line 2: field 2 is not UTF-8 text"),
            "{}",
            message(b"a,b\n1,\xff\n")
        );
        assert_eq!(message(b""), "'t.csv' is empty; give a CSV file with a header");
        let table = Table::parse(b"a\nx\n", "t.csv").unwrap();
        assert_eq!(table.number(0, "a").unwrap_err().to_string(), "'t.csv' line 2: a = 'x' is not a number");
    }

    #[test]
    fn subnormal_numbers_are_refused_and_zero_is_not() {
        let table = Table::parse(b"a\n1e-310\n0\n2.3e-308\n", "t.csv").unwrap();
        assert!(table.number(0, "a").unwrap_err().to_string().contains("line 2: a = '1e-310' is too close to 0"));
        assert_eq!(table.number(1, "a").unwrap(), Some(0.0));
        assert_eq!(table.number(2, "a").unwrap(), Some(2.3e-308));
    }
}
