//! Building the application from its configuration: pool, migrations, router, listener.
//! `main` and the integration tests start the server the same way.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use app::ssr_context::RecentNotes;
use app::{App, shell};
use axum::Router;
use axum::http::{HeaderValue, header};
use axum::routing::{any, get};
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};
use sqlx::SqlitePool;
use tokio::net::TcpListener;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use crate::config::Config;
use crate::notes::{routes as notes_routes, store};
use crate::offline::{self, ShellBuild};
use crate::state::AppState;
use crate::{db, error, health, sweeper};

/// The name cargo-leptos gives the wasm, JS and CSS bundles (`output-name` in Cargo.toml).
pub const OUTPUT_NAME: &str = "oncenote";
/// How many notes the server-rendered page shows.
const PAGE_NOTES: u32 = 50;

/// A server ready to accept connections.
pub struct Application {
    listener: TcpListener,
    router: Router,
    pool: SqlitePool,
}

impl Application {
    /// Opens and migrates the database, builds the routes, binds the address.
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        let pool = db::open(&config.database_url, config.key_wait).await?;
        let listener = TcpListener::bind(config.site_addr)
            .await
            .with_context(|| format!("could not listen on {}", config.site_addr))?;
        let leptos_options = LeptosOptions::builder()
            .output_name(OUTPUT_NAME)
            .site_root(config.site_root.as_str())
            .site_addr(listener.local_addr()?)
            // The asset names carry content hashes (see hash-files in Cargo.toml) when
            // the binary has cargo-leptos's hash.txt beside it.
            .hash_files(offline::hash_file().is_some_and(|path| path.is_file()))
            .build();
        sweeper::spawn(pool.clone(), config.sweep_interval);
        let shell = Arc::new(ShellBuild::detect(OUTPUT_NAME, config.build_id.clone()));
        let state = AppState {
            pool: pool.clone(),
            config: Arc::new(config),
            leptos_options,
            shell,
            key_gates: Arc::default(),
        };
        Ok(Self {
            listener,
            router: router(state),
            pool,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    pub fn pool(&self) -> SqlitePool {
        self.pool.clone()
    }

    /// Serves until `shutdown` resolves, then lets requests in flight finish.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(shutdown)
            .await?;
        self.pool.close().await;
        Ok(())
    }
}

/// Every route: the JSON API, the health check, the server-rendered pages and the
/// static files cargo-leptos built.
pub fn router(state: AppState) -> Router {
    let recent = recent_notes(state.pool.clone());
    let site_root = state.config.site_root.clone();
    let hashed = state.leptos_options.hash_files;
    let leptos_options = state.leptos_options.clone();
    let api = notes_routes::router();
    #[cfg(feature = "bench-plain-insert")]
    let api = api.merge(crate::notes::plain_insert::router());
    Router::new()
        .merge(api)
        .route("/healthz", get(health::healthz))
        .route("/sw.js", get(offline::service_worker))
        .route("/api/{*rest}", any(error::not_found))
        .nest_service("/pkg", static_assets(&site_root, hashed))
        .leptos_routes_with_context(
            &state,
            generate_route_list(App),
            move || provide_context(recent.clone()),
            move || shell(leptos_options.clone()),
        )
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// How the page reads the newest notes while rendering on the server.
fn recent_notes(pool: SqlitePool) -> RecentNotes {
    RecentNotes::new(move || {
        let pool = pool.clone();
        async move {
            store::list(&pool, PAGE_NOTES, None)
                .await
                .map(|page| page.notes)
                .map_err(|e| {
                    tracing::error!(error = ?e, "could not read notes for the page");
                    "the notes could not be read".to_owned()
                })
        }
    })
}

/// The wasm, JS and CSS. Their names carry content hashes when `hashed`, so browsers may
/// keep them for a year; a miss (or a path trick such as `..`) is a 404 problem.
fn static_assets(site_root: &str, hashed: bool) -> Router {
    let files = ServeDir::new(std::path::Path::new(site_root).join("pkg"))
        .not_found_service(any(error::not_found).with_state(()));
    let cache_control = if hashed {
        HeaderValue::from_static("public, max-age=31536000, immutable")
    } else {
        HeaderValue::from_static("no-cache")
    };
    Router::new()
        .fallback_service(files)
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CACHE_CONTROL,
            cache_control,
        ))
}
