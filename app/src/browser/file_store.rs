//! The files added to notes, kept in this browser until the server holds them, so a
//! reload, a closed tab or a day offline loses none (PROTOCOL.md "Files"; the note that
//! refers to a file is sent only after it, see `file_upload.rs`).
//!
//! - One database per person, `oncenote-files-<user id>`, like the offline copy's: another
//!   person signing in on this browser never reads it. Sign-out deletes it only when
//!   nothing is unsaved (`sign_out.rs`): the files of unsaved notes stay with them.
//! - Store `files`, keyed by the file's SHA-256: `{name, type, size, added_at, uploaded,
//!   refused, blob}`. A file is written here before anything is sent. Once uploaded its
//!   blob is dropped (the server holds the bytes) and the entry stays, small, marked
//!   `uploaded`; a file refused for good keeps why (`refused`), so it is not sent again.
//! - The same bytes added twice are one entry: the first one's name is kept.

use std::cell::RefCell;

use js_sys::{Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, IdbDatabase, IdbObjectStore, IdbTransaction, IdbTransactionMode};

use super::idb::{self, IdbError};
use super::namespace;

/// The schema's version: a new store or index means a new version.
const VERSION: u32 = 1;
const FILES: &str = "files";

thread_local! {
    static DATABASE: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

/// The database holding `user`'s files.
pub fn database_name(user: &str) -> String {
    format!("oncenote-files-{user}")
}

/// A file this browser keeps.
#[derive(Clone, Debug)]
pub struct KeptFile {
    pub sha256: String,
    pub name: String,
    pub content_type: String,
    pub size: f64,
    pub uploaded: bool,
    /// Why the server refused it for good (the problem, as JSON), if it did.
    pub refused: Option<String>,
    /// The bytes, until a note that refers to the file is saved: an upload alone does not
    /// let them go, since the server sweeps a file no note refers to after its grace
    /// period — a note saved later than that uploads them again (`upload_files_of`).
    pub blob: Option<Blob>,
}

impl KeptFile {
    /// Kept and still to be uploaded (neither uploaded nor refused).
    pub fn is_waiting(&self) -> bool {
        !self.uploaded && self.refused.is_none() && self.blob.is_some()
    }

    fn to_js(&self, added_at: f64) -> JsValue {
        let entry = Object::new();
        let set = |name: &str, value: JsValue| {
            let _ = Reflect::set(&entry, &JsValue::from_str(name), &value);
        };
        set("name", JsValue::from_str(&self.name));
        set("type", JsValue::from_str(&self.content_type));
        set("size", JsValue::from_f64(self.size));
        set("added_at", JsValue::from_f64(added_at));
        set("uploaded", JsValue::from_bool(self.uploaded));
        set(
            "refused",
            self.refused
                .as_deref()
                .map_or(JsValue::NULL, JsValue::from_str),
        );
        set(
            "blob",
            self.blob
                .as_ref()
                .map_or(JsValue::NULL, |b| JsValue::from(b.clone())),
        );
        entry.into()
    }

    fn from_js(sha256: &str, value: &JsValue) -> Option<(Self, f64)> {
        if !value.is_object() {
            return None;
        }
        let get = |name: &str| Reflect::get(value, &JsValue::from_str(name)).ok();
        let file = KeptFile {
            sha256: sha256.to_owned(),
            name: get("name")?.as_string().unwrap_or_default(),
            content_type: get("type")?.as_string().unwrap_or_default(),
            size: get("size")?.as_f64().unwrap_or_default(),
            uploaded: get("uploaded")?.as_bool().unwrap_or(false),
            refused: get("refused").and_then(|r| r.as_string()),
            blob: get("blob").and_then(|b| b.dyn_into::<Blob>().ok()),
        };
        let added_at = get("added_at").and_then(|a| a.as_f64()).unwrap_or(0.0);
        Some((file, added_at))
    }
}

/// Keeps `blob` as the file `sha256` (named `name`, of `content_type`), unless it is kept
/// already; answers the entry as it is now.
pub async fn keep(
    sha256: &str,
    blob: &Blob,
    name: &str,
    content_type: &str,
) -> Result<KeptFile, IdbError> {
    let db = database().await?;
    let (transaction, store) = writing(&db)?;
    let key = JsValue::from_str(sha256);
    let held = idb::settle(&store.get(&key).map_err(js_failed)?).await?;
    if let Some((file, _)) = KeptFile::from_js(sha256, &held)
        && file.refused.is_none()
    {
        idb::committed(&transaction).await?;
        return Ok(file);
    }
    // New, or refused before: added again, it is tried again (the quota may have room
    // now, or the bytes read right this time).
    let file = KeptFile {
        sha256: sha256.to_owned(),
        name: name.to_owned(),
        content_type: content_type.to_owned(),
        size: blob.size(),
        uploaded: false,
        refused: None,
        blob: Some(blob.clone()),
    };
    store
        .put_with_key(&file.to_js(js_sys::Date::now()), &key)
        .map_err(js_failed)?;
    idb::committed(&transaction).await?;
    Ok(file)
}

/// The file `sha256`, if this browser keeps it.
pub async fn get(sha256: &str) -> Result<Option<KeptFile>, IdbError> {
    let db = database().await?;
    let transaction = db.transaction_with_str(FILES).map_err(js_failed)?;
    let store = transaction.object_store(FILES).map_err(js_failed)?;
    let request = store.get(&JsValue::from_str(sha256)).map_err(js_failed)?;
    let held = idb::settle(&request).await?;
    Ok(KeptFile::from_js(sha256, &held).map(|(file, _)| file))
}

/// Every file kept and still to be uploaded, oldest first.
pub async fn waiting() -> Result<Vec<KeptFile>, IdbError> {
    kept(KeptFile::is_waiting).await
}

/// Every file whose bytes are still kept here: to be uploaded, or uploaded but not yet
/// referred to by a saved note.
pub async fn holding_bytes() -> Result<Vec<KeptFile>, IdbError> {
    kept(|file| file.blob.is_some()).await
}

/// Every file kept that a note about to be sent may need: still to be uploaded, refused,
/// or uploaded with its bytes still here (to check the server still has it).
pub async fn for_a_note() -> Result<Vec<KeptFile>, IdbError> {
    kept(|file| !file.uploaded || file.blob.is_some()).await
}

/// The kept files that pass `keep`, oldest first.
async fn kept(keep: impl Fn(&KeptFile) -> bool) -> Result<Vec<KeptFile>, IdbError> {
    let db = database().await?;
    let transaction = db.transaction_with_str(FILES).map_err(js_failed)?;
    let store = transaction.object_store(FILES).map_err(js_failed)?;
    let keys: js_sys::Array = idb::settle(&store.get_all_keys().map_err(js_failed)?)
        .await?
        .dyn_into()
        .map_err(js_failed)?;
    let values: js_sys::Array = idb::settle(&store.get_all().map_err(js_failed)?)
        .await?
        .dyn_into()
        .map_err(js_failed)?;
    let mut files: Vec<(KeptFile, f64)> = keys
        .iter()
        .zip(values.iter())
        .filter_map(|(key, value)| KeptFile::from_js(&key.as_string()?, &value))
        .filter(|(file, _)| keep(file))
        .collect();
    files.sort_by(|a, b| a.1.total_cmp(&b.1));
    Ok(files.into_iter().map(|(file, _)| file).collect())
}

/// Records that the server holds `sha256` (its blob stays until a note referring to it is
/// saved: [`release`]), or refused it for good (`refused`, the problem as JSON).
pub async fn settle_file(sha256: &str, refused: Option<String>) -> Result<(), IdbError> {
    update(sha256, |file| match refused {
        None => file.uploaded = true,
        Some(problem) => file.refused = Some(problem),
    })
    .await
}

/// The server no longer holds `sha256` (swept: no note referred to it for the grace
/// period): it is to be uploaded again from the bytes kept here.
pub async fn unsettle(sha256: &str) -> Result<(), IdbError> {
    update(sha256, |file| file.uploaded = false).await
}

/// A note referring to these files is saved: the server keeps them as long as the note
/// exists, so their bytes here can go.
pub async fn release(names: &[String]) -> Result<(), IdbError> {
    for sha256 in names {
        update(sha256, |file| {
            if file.uploaded {
                file.blob = None;
            }
        })
        .await?;
    }
    Ok(())
}

async fn update(sha256: &str, change: impl FnOnce(&mut KeptFile)) -> Result<(), IdbError> {
    let db = database().await?;
    let (transaction, store) = writing(&db)?;
    let key = JsValue::from_str(sha256);
    let held = idb::settle(&store.get(&key).map_err(js_failed)?).await?;
    if let Some((mut file, added_at)) = KeptFile::from_js(sha256, &held) {
        change(&mut file);
        store
            .put_with_key(&file.to_js(added_at), &key)
            .map_err(js_failed)?;
    }
    idb::committed(&transaction).await
}

/// Deletes `user`'s kept files (at a sign-out with nothing unsaved).
pub async fn forget(user: &str) -> Result<(), IdbError> {
    if let Some(db) = DATABASE.with(|d| d.borrow_mut().take()) {
        db.close();
    }
    idb::delete(&database_name(user)).await
}

/// This person's database, opened once per page.
async fn database() -> Result<IdbDatabase, IdbError> {
    if let Some(db) = DATABASE.with(|d| d.borrow().clone()) {
        return Ok(db);
    }
    let user = namespace::user()
        .or_else(namespace::read_user_from_page)
        .ok_or(IdbError::Unavailable)?;
    let db = idb::open(&database_name(&user), VERSION, &[FILES]).await?;
    DATABASE.with(|d| *d.borrow_mut() = Some(db.clone()));
    Ok(db)
}

fn writing(db: &IdbDatabase) -> Result<(IdbTransaction, IdbObjectStore), IdbError> {
    let transaction = db
        .transaction_with_str_and_mode(FILES, IdbTransactionMode::Readwrite)
        .map_err(js_failed)?;
    let store = transaction.object_store(FILES).map_err(js_failed)?;
    Ok((transaction, store))
}

fn js_failed(error: JsValue) -> IdbError {
    IdbError::Failed(format!("{error:?}"))
}
