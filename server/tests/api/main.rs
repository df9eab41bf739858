//! Integration tests: the real server on port 0, a fresh SQLite database per test.

mod accounts;
mod copy_to;
mod database_failures;
mod db_proxy;
mod form_post;
mod guessing_limits;
mod helpers;
mod hostile_inputs;
mod html_safety;
mod http_hardening;
mod idempotent_create;
mod import;
mod late_after_purge;
mod lifecycle;
mod markdown;
mod naughty_strings;
mod notes_routes;
mod offline_shell;
mod replicas;
mod request_checks;
mod search;
mod seed_scenarios;
mod test_db;
mod transport;
mod whose_write;
