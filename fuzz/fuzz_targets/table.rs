//! The CSV reader of `poplab plot` (`poplab::table::Table`), any bytes: no panic, errors typed
//! (`Error::File` naming the file); a table read, written back as CSV, reads back the same, and
//! every cell reads as a number or says why not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::Error;
use poplab::table::Table;

fuzz_target!(|data: &[u8]| {
    let table = match Table::parse(data, "fuzz.csv") {
        Ok(table) => table,
        Err(Error::File { path, reason }) => {
            assert_eq!(path, "fuzz.csv");
            return assert!(!reason.is_empty());
        }
        Err(other) => panic!("not a file error: {other:?}"),
    };
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(table.header()).unwrap();
    for row in 0..table.rows() {
        let fields: Vec<&str> = table.header().iter().map(|c| table.text(row, c).unwrap()).collect();
        for (column, text) in table.header().iter().zip(&fields) {
            match table.number(row, column) {
                Ok(Some(value)) => assert!(!value.is_subnormal(), "{text}"),
                Ok(None) => assert!(text.is_empty()),
                Err(error) => assert!(matches!(error, Error::File { .. }), "{error:?}"),
            }
        }
        writer.write_record(&fields).unwrap();
    }
    let bytes = writer.into_inner().unwrap();
    let again = Table::parse(&bytes, "fuzz.csv").expect("a table written back reads back");
    assert_eq!(again.header(), table.header());
    assert_eq!(again.rows(), table.rows());
});
