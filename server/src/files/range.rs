//! `Range: bytes=…` on a file (RFC 9110 §14): one range — `a-b`, `a-` or the last `-n`
//! bytes — is served as 206 with only the chunks it needs read; a range that starts past
//! the end is 416. Several ranges, or a header that is not a byte range, are ignored (the
//! whole file, 200), as the RFC lets a server do.

/// What a request's `Range` asks of a file of a given size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeAsk {
    /// The whole file (no `Range`, or one the server ignores).
    Whole,
    /// Bytes `first..=last`, both within the file.
    Part { first: u64, last: u64 },
    /// Nothing of the file: 416.
    Unsatisfiable,
}

impl RangeAsk {
    /// Reads `header` for a file of `size` bytes.
    pub fn parse(header: Option<&str>, size: u64) -> Self {
        let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else {
            return RangeAsk::Whole;
        };
        let spec = spec.trim();
        if spec.contains(',') {
            return RangeAsk::Whole;
        }
        let Some((start, end)) = spec.split_once('-') else {
            return RangeAsk::Whole;
        };
        // A number, or None for an empty side; anything else ignores the header.
        let side = |text: &str| -> Result<Option<u64>, ()> {
            let text = text.trim();
            if text.is_empty() {
                Ok(None)
            } else if text.bytes().all(|b| b.is_ascii_digit()) {
                // Past u64: as far as any file goes.
                Ok(Some(text.parse().unwrap_or(u64::MAX)))
            } else {
                Err(())
            }
        };
        match (side(start), side(end)) {
            // `-n`: the last n bytes.
            (Ok(None), Ok(Some(suffix))) => {
                if suffix == 0 || size == 0 {
                    RangeAsk::Unsatisfiable
                } else {
                    RangeAsk::Part {
                        first: size.saturating_sub(suffix),
                        last: size - 1,
                    }
                }
            }
            (Ok(Some(first)), Ok(end)) => {
                if end.is_some_and(|end| end < first) {
                    RangeAsk::Whole
                } else if first >= size {
                    RangeAsk::Unsatisfiable
                } else {
                    RangeAsk::Part {
                        first,
                        last: end.map_or(size - 1, |end| end.min(size - 1)),
                    }
                }
            }
            _ => RangeAsk::Whole,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_byte_range_is_a_part_of_the_file() {
        let ask = |h: &str| RangeAsk::parse(Some(h), 100);
        assert_eq!(ask("bytes=0-9"), RangeAsk::Part { first: 0, last: 9 });
        assert_eq!(ask("bytes=90-"), RangeAsk::Part { first: 90, last: 99 });
        assert_eq!(ask("bytes=-10"), RangeAsk::Part { first: 90, last: 99 });
        assert_eq!(ask("bytes=-1000"), RangeAsk::Part { first: 0, last: 99 });
        assert_eq!(ask("bytes=50-1000"), RangeAsk::Part { first: 50, last: 99 });
        assert_eq!(ask("bytes=99-99"), RangeAsk::Part { first: 99, last: 99 });
    }

    #[test]
    fn a_range_past_the_end_is_unsatisfiable() {
        let ask = |h: &str| RangeAsk::parse(Some(h), 100);
        assert_eq!(ask("bytes=100-"), RangeAsk::Unsatisfiable);
        assert_eq!(ask("bytes=100-200"), RangeAsk::Unsatisfiable);
        assert_eq!(ask("bytes=-0"), RangeAsk::Unsatisfiable);
        assert_eq!(RangeAsk::parse(Some("bytes=0-"), 0), RangeAsk::Unsatisfiable);
        assert_eq!(ask("bytes=99999999999999999999999-"), RangeAsk::Unsatisfiable);
    }

    #[test]
    fn what_is_not_one_byte_range_asks_for_the_whole_file() {
        let ask = |h: &str| RangeAsk::parse(Some(h), 100);
        assert_eq!(RangeAsk::parse(None, 100), RangeAsk::Whole);
        assert_eq!(ask("bytes=0-1,5-6"), RangeAsk::Whole);
        assert_eq!(ask("items=0-1"), RangeAsk::Whole);
        assert_eq!(ask("bytes=5-1"), RangeAsk::Whole);
        assert_eq!(ask("bytes=a-b"), RangeAsk::Whole);
        assert_eq!(ask("bytes=1-x"), RangeAsk::Whole);
        assert_eq!(ask("bytes=-"), RangeAsk::Whole);
    }
}
