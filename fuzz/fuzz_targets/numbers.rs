//! Numbers, lists and ranges (`poplab::numbers`) and shard names (`I/K`): no panic; a parsed
//! number prints and parses back to itself; ranges are increasing and bounded.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::numbers::{parse_at_most, parse_list, parse_u64, parse_u128};
use poplab::sweep::Shard;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match parse_u128(text) {
        Ok(value) => {
            assert_eq!(parse_u128(&value.to_string()), Ok(value), "{text}");
            assert_eq!(parse_at_most(text, value), Ok(value));
            if value > 0 {
                assert!(parse_at_most(text, value - 1).is_err(), "{text}");
            }
            assert_eq!(parse_u64(text).ok(), u64::try_from(value).ok(), "{text}");
        }
        Err(message) => {
            assert!(message.contains(text), "the message names the text: {message}");
            assert!(parse_u64(text).is_err());
        }
    }
    match parse_list(text) {
        Ok(values) => {
            assert!(!values.is_empty() && values.len() <= 100_000, "{text}");
            if text.contains("..") {
                let numbers: Vec<u64> = values.iter().map(|v| v.parse().expect("a range holds numbers")).collect();
                assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{text}: {values:?}");
            } else {
                assert_eq!(parse_list(&values.join(",")).ok(), Some(values.clone()), "{text}");
            }
        }
        Err(error) => assert!(matches!(error, poplab::Error::Option { option: "a list", .. }), "{error:?}"),
    }
    for pack in [1, 3] {
        match Shard::parse(text, pack) {
            Ok(shard) => {
                assert!(shard.of >= 1 && shard.count == pack && shard.first + shard.count <= shard.of, "{shard:?}");
                assert!(!shard.describe().is_empty());
                assert_eq!(
                    Shard::parse(&format!("{}/{}", shard.first / pack, shard.of / pack), pack).ok(),
                    Some(shard)
                );
            }
            Err(error) => poplab_fuzz::check_error(&error),
        }
    }
});
