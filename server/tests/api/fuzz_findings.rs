//! What the API fuzzer (scripts/fuzz-api.sh) found, each pinned by a test.

use crate::helpers::spawn_app;

/// Every browser asks for compressed answers; the export's zip streamed from its spool
/// file broke off (the stream panicked when the compression layer polled it after its
/// end), so the download never finished.
#[tokio::test]
async fn an_export_asked_for_compressed_arrives_whole() {
    let app = spawn_app().await;
    app.create("Kept", "taken away whole").await;
    for encoding in ["gzip", "br", "gzip, deflate, br"] {
        let response = app
            .client
            .get(app.url("/api/export"))
            .header("accept-encoding", encoding)
            .send()
            .await
            .expect("the server answers");
        assert_eq!(response.status(), 200, "{encoding}");
        let compressed = response.headers().contains_key("content-encoding");
        let body = response.bytes().await;
        let body = body.unwrap_or_else(|e| panic!("{encoding}: the export broke off: {e}"));
        assert!(!body.is_empty(), "{encoding}");
        if !compressed {
            assert!(body.starts_with(b"PK"), "{encoding}: not a zip");
        }
    }
}
