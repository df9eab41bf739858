//! Rebuilds the server when a migration changes. `sqlx::migrate!` embeds the files of
//! `migrations/` at compile time, but on stable Rust it cannot tell cargo to watch them: a
//! new or edited migration alone would leave the old set in the binary (sqlx's documented
//! remedy, as `sqlx migrate build-script` writes it).
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
