//! A Standard Notes backup's JSON (`{"version":"004","items":[…]}`) read as a stream:
//! each item is deserialized on its own, handed over and dropped, and none may take
//! more than a bound of the file's bytes.

use std::cell::Cell;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::rc::Rc;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::ReadError;

/// One item of the backup, as much of it as the reader uses.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Item {
    pub uuid: String,
    pub content_type: String,
    /// An object in a decrypted backup; a string (`004:…`) in an encrypted one.
    pub content: Value,
    pub deleted: bool,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    /// Microseconds since the epoch (newer backups).
    pub created_at_timestamp: Option<i64>,
    pub updated_at_timestamp: Option<i64>,
}

/// What the top level said besides its items.
#[derive(Default)]
pub(super) struct Shape {
    pub has_items: bool,
    /// `keyParams` / `auth_params`: the backup was made with an account's keys.
    pub has_key_params: bool,
}

/// Calls `on_item` for each item of the backup `source` holds, in order. One item may
/// take at most `item_bytes` of the file (more is [`ReadError::TooLarge`]).
pub(super) fn for_each_item<R: BufRead>(
    source: R,
    item_bytes: u64,
    on_item: &mut dyn FnMut(Item) -> Result<(), ReadError>,
) -> Result<Shape, ReadError> {
    let counted = Rc::new(Cell::new(0u64));
    let over = Rc::new(Cell::new(false));
    let reader = Budget {
        inner: source,
        counted: counted.clone(),
        cap: item_bytes,
        over: over.clone(),
    };
    let mut stopped = None;
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let seed = Backup {
        on_item,
        stopped: &mut stopped,
        counted: &counted,
    };
    let result = seed
        .deserialize(&mut deserializer)
        .and_then(|shape| deserializer.end().map(|()| shape));
    if let Some(error) = stopped {
        return Err(error);
    }
    match result {
        Ok(shape) => Ok(shape),
        Err(_) if over.get() => Err(ReadError::TooLarge(format!(
            "an item of the Standard Notes backup is larger than {item_bytes} bytes, \
             the most one note may take"
        ))),
        Err(e) if e.is_io() => Err(ReadError::Io(io::Error::other(e.to_string()))),
        Err(e) => Err(ReadError::Malformed(format!(
            "this is not a Standard Notes backup that can be read (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))),
    }
}

/// Counts the bytes read since the last reset (serde_json reads a byte at a time, so the
/// count is exact) and fails past `cap`.
struct Budget<R> {
    inner: R,
    counted: Rc<Cell<u64>>,
    cap: u64,
    over: Rc<Cell<bool>>,
}

impl<R: BufRead> Read for Budget<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.counted.get() > self.cap {
            self.over.set(true);
            return Err(io::Error::other("an item is larger than the limit"));
        }
        let n = self.inner.read(out)?;
        self.counted.set(self.counted.get() + n as u64);
        Ok(n)
    }
}

struct Backup<'a, 'f> {
    on_item: &'a mut dyn FnMut(Item) -> Result<(), ReadError>,
    stopped: &'f mut Option<ReadError>,
    counted: &'f Rc<Cell<u64>>,
}

impl<'de> DeserializeSeed<'de> for Backup<'_, '_> {
    type Value = Shape;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Shape, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Backup<'_, '_> {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object with \"version\" and \"items\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut shape = Shape::default();
        let Backup {
            on_item,
            stopped,
            counted,
        } = self;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "items" => {
                    shape.has_items = true;
                    map.next_value_seed(Items {
                        on_item: &mut *on_item,
                        stopped: &mut *stopped,
                        counted,
                    })?;
                }
                "keyParams" | "auth_params" => {
                    shape.has_key_params = true;
                    counted.set(0);
                    map.next_value::<IgnoredAny>()?;
                }
                _ => {
                    counted.set(0);
                    map.next_value::<IgnoredAny>()?;
                }
            }
            counted.set(0);
        }
        Ok(shape)
    }
}

struct Items<'a, 'f> {
    on_item: &'a mut dyn FnMut(Item) -> Result<(), ReadError>,
    stopped: &'a mut Option<ReadError>,
    counted: &'f Rc<Cell<u64>>,
}

impl<'de> DeserializeSeed<'de> for Items<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Items<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of items")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            self.counted.set(0);
            let Some(item) = seq.next_element::<Item>()? else {
                return Ok(());
            };
            if let Err(error) = (self.on_item)(item) {
                *self.stopped = Some(error);
                return Err(de::Error::custom("stopped"));
            }
        }
    }
}
