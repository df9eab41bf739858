//! Building the application from its configuration: database, routes, listener.
//! `main` and the integration tests start the server the same way.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use app::ssr_context::{FeedSeq, FormKey, SignedInAs, SignupOpen, SiteAddress};
use app::{App, shell};
use axum::Router;
use axum::http::{Extensions, HeaderMap, HeaderValue, StatusCode, Version, header};
use axum::routing::{any, get};
use leptos::config::LeptosOptions;
use leptos::prelude::{provide_context, use_context};
use leptos_axum::{LeptosRoutes, ResponseOptions, generate_route_list};
use tokio::net::TcpListener;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{DefaultPredicate, Predicate};
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::{DefaultOnFailure, TraceLayer};

use crate::accounts::actions::site_address;
use crate::accounts::routes::base_url;
use crate::accounts::session::CookieSecurity;
use crate::accounts::{self, Viewer, gate, session};
use crate::config::Config;
use crate::files::serve::FileBytes;
use crate::http::client::{ClientAddr, is_https};
use crate::http::csrf;
use crate::http::host::{self, AllowedHosts};
use crate::http::per_address::{self, AddressPlaces, ProxiedRequests};
use crate::http::{security_headers, server_timing};
use crate::live::Hub;
use crate::notes::{form, routes as notes_routes, transfer};
use crate::offline::{self, ShellBuild};
use crate::serve::ConnectionLimits;
use crate::state::AppState;
use crate::storage::Store;
use crate::{error, health, open_files, page_data, serve, sweeper};

/// The name cargo-leptos gives the wasm, JS and CSS bundles (`output-name` in Cargo.toml).
pub const OUTPUT_NAME: &str = "oncenote";

/// A server ready to accept connections.
pub struct Application {
    listener: TcpListener,
    router: Router,
    store: Store,
    limits: ConnectionLimits,
    live: Arc<Hub>,
}

impl Application {
    /// Opens and migrates the database, builds the routes, binds the address.
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        let store = Store::open(&config).await?;
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
        sweeper::spawn(
            store.clone(),
            config.sweep_interval,
            config.trash_retention,
            config.sign_in_window,
            config.tombstone_retention,
            config.file_grace,
        );
        let base_url = format!(
            "http://{}",
            crate::healthcheck::reachable_at(listener.local_addr()?)
        );
        accounts::setup::on_start(&store, &config, &base_url).await?;
        let shell = Arc::new(ShellBuild::detect(OUTPUT_NAME, config.build_id.clone()));
        let max_connections =
            open_files::connection_cap(config.max_connections, open_files::raise_to_hard_limit());
        if max_connections < config.max_connections {
            tracing::warn!(
                max_connections,
                "the open-file limit allows fewer connections than ONCENOTE_MAX_CONNECTIONS; \
                 raise it (LimitNOFILE in the systemd unit, ulimit -n) to allow more"
            );
        }
        if listener.local_addr()?.ip().is_loopback() && config.trusted_proxies.is_empty() {
            tracing::info!(
                "listening on loopback and trusting no proxy: behind a reverse proxy on this \
                 machine, set ONCENOTE_TRUSTED_PROXIES=127.0.0.1, or every client counts as \
                 the proxy (sign-in limits, and ONCENOTE_MAX_CONNECTIONS_PER_ADDRESS for the \
                 whole site)"
            );
        }
        let limits = ConnectionLimits {
            header_timeout: config.header_timeout,
            max_connections,
            max_per_address: config.max_per_address,
            trusted_proxies: config.trusted_proxies.clone(),
            send_timeout: config.send_timeout,
        };
        // Streams never take more than half of the connections the server allows (the
        // cap as lowered to the open-file limit).
        let live = Hub::new(
            config.streams_per_person,
            config.streams_max.min(max_connections / 2).max(1),
        );
        live.follow(store.clone(), config.feed_poll);
        let uploads = Arc::new(crate::files::uploads::Uploads::open(&config)?);
        let state = AppState {
            uploads,
            live: Arc::clone(&live),
            store: store.clone(),
            config: Arc::new(config),
            leptos_options,
            shell,
            key_gates: Arc::default(),
            write_health: Arc::default(),
        };
        Ok(Self {
            listener,
            router: router(state),
            store,
            limits,
            live,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Serves until `shutdown` resolves, then lets requests in flight finish.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        // Live streams never end on their own: at shutdown they are ended, so the
        // requests in flight that the server waits for are only the short ones.
        let live = self.live;
        let shutdown = async move {
            shutdown.await;
            live.close();
        };
        serve::serve(self.listener, self.router, self.limits, shutdown).await?;
        self.store.close().await;
        Ok(())
    }
}

/// Every route: the JSON API, the form, the health check, the server-rendered pages and
/// the static files cargo-leptos built — behind the `Host` check, with security headers
/// and compression.
pub fn router(state: AppState) -> Router {
    let page_state = state.clone();
    let site_root = state.config.site_root.clone();
    let hashed = state.leptos_options.hash_files;
    let leptos_options = state.leptos_options.clone();
    let api = notes_routes::router();
    #[cfg(feature = "bench-plain-insert")]
    let api = api.merge(crate::notes::plain_insert::router());
    let routes = Router::new()
        .merge(api)
        .merge(form::router())
        .merge(crate::search::routes::router(state.config.server_timing))
        .merge(crate::tags::routes::router())
        .merge(crate::live::routes::changes_router())
        .merge(accounts::routes::router())
        .merge(accounts::api_tokens::router())
        .merge(transfer::router())
        .merge(crate::files::routes::router())
        .merge(crate::openapi::router())
        .merge(accounts::forms::router())
        .route("/healthz", get(health::healthz))
        .route("/sw.js", get(offline::service_worker))
        .route("/api/{*rest}", any(error::not_found))
        .nest_service("/pkg", static_assets(&site_root, hashed))
        .leptos_routes_with_context(
            &state,
            page_routes(),
            move || page_context(&page_state),
            move || shell(leptos_options.clone()),
        )
        .fallback_service(site_files(&state))
        // A file's bytes (marked `FileBytes`) are never compressed: compressing would drop
        // their length and their ranges, and their ETag would name other bytes. The site's
        // assets are, though they offer ranges too (ServeDir's `Accept-Ranges`). Nor is an
        // import's progress, whose lines a compressor would hold back.
        .layer(
            CompressionLayer::new().compress_when(DefaultPredicate::new().and(
                |_: StatusCode, _: Version, headers: &HeaderMap, extensions: &Extensions| {
                    extensions.get::<FileBytes>().is_none() && !is_progress_stream(headers)
                },
            )),
        )
        // Live streams are never compressed (an event would wait in the compressor), and
        // they are kept out of the compression layer altogether: a body that passes it is
        // that layer's body, with room for every encoder's state (5.8 KiB), held for as
        // long as the stream is open: a quarter of an idle stream's resident memory.
        .merge(crate::live::routes::events_router())
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            gate::pages_need_sign_in,
        ))
        // The cross-site check runs after the sign-in: it skips requests a token signed
        // in, which only the sign-in knows.
        .layer(axum::middleware::from_fn(csrf::refuse_cross_site))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            session::identify,
        ));
    let routes = security_headers::apply(routes)
        // Every refusal is logged once, by its handler, with its class and key
        // (`ApiError::log`); the trace layer's own ERROR line for each 5xx would double
        // that, and turn a full disk's once-a-minute line back into one per request.
        .layer(
            TraceLayer::new_for_http()
                .on_failure(DefaultOnFailure::new().level(tracing::Level::DEBUG)),
        )
        // Behind a trusted proxy, each forwarded address's requests in flight are
        // bounded as the connection loop bounds each address's connections.
        .layer(axum::middleware::from_fn_with_state(
            ProxiedRequests {
                places: AddressPlaces::new(state.config.max_per_address),
                config: state.config.clone(),
            },
            per_address::through_a_proxy,
        ))
        .layer(axum::middleware::from_fn_with_state(
            AllowedHosts::new(state.config.allowed_hosts.clone()),
            host::check,
        ));
    // Outermost, and only when the operator turned the header on: off, no route stamps an
    // answer, and the layer would only cost every request a clock read and a lookup.
    let routes = if state.config.server_timing {
        routes.layer(axum::middleware::from_fn(server_timing::total))
    } else {
        routes
    };
    routes.with_state(state)
}

/// The app's pages, found once per process. Finding them renders the app once, and while
/// that runs leptos_server holds back every resource in the process: a page another app
/// in this process (a test, a replica started beside another) was rendering at that moment
/// waited forever. Found once, before any app serves, nothing else is ever held back.
fn page_routes() -> Vec<leptos_axum::AxumRouteListing> {
    static ROUTES: std::sync::Mutex<Option<Vec<leptos_axum::AxumRouteListing>>> =
        std::sync::Mutex::new(None);
    let mut routes = ROUTES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    routes
        .get_or_insert_with(|| generate_route_list(App))
        .clone()
}

/// What a page gets while it renders on the server: who is signed in and how to read
/// their data, a fresh key for its form, and its Content-Security-Policy (with this
/// response's nonce).
fn page_context(state: &AppState) {
    let store = &state.store;
    provide_context(SignupOpen(state.config.signup_open));
    let parts = use_context::<axum::http::request::Parts>();
    if let Some(parts) = &parts {
        let peer = parts.extensions.get::<ClientAddr>().copied();
        let security = CookieSecurity(is_https(&parts.headers, peer, &state.config));
        provide_context(SiteAddress(site_address(
            &state.config,
            &base_url(&parts.headers, security),
        )));
    }
    if let Some(seq) = parts.as_ref().and_then(|p| p.extensions.get::<FeedSeq>()) {
        provide_context(*seq);
    }
    let viewer = parts.and_then(|parts| parts.extensions.get::<Viewer>().cloned());
    if let Some(viewer) = viewer {
        provide_context(page_data::for_scope(
            store.clone(),
            &viewer.user_id,
            viewer.admin,
        ));
        provide_context(SignedInAs(app::api::Me {
            user_id: viewer.user_id,
            username: viewer.username,
            admin: viewer.admin,
        }));
    }
    provide_context(FormKey(uuid::Uuid::new_v4().to_string()));
    if let (Some(nonce), Some(response)) =
        (leptos::nonce::use_nonce(), use_context::<ResponseOptions>())
        && let Ok(policy) = HeaderValue::from_str(&security_headers::page_policy(&nonce))
    {
        response.insert_header(header::CONTENT_SECURITY_POLICY, policy);
    }
}

/// The files at the site's root (favicon, manifest, icons), and the "no such page" page
/// for everything else. Not leptos_axum's `file_and_error_handler`: the owner it makes for
/// a file it found is a child of whichever reactive owner is current, so it took the
/// response headers (the Content-Security-Policy) of a page rendering at that moment.
fn site_files(state: &AppState) -> ServeDir<axum::routing::MethodRouter> {
    let not_found = leptos_axum::file_and_error_handler::<AppState, _>(shell);
    ServeDir::new(&state.config.site_root)
        .append_index_html_on_directories(false)
        .fallback(any(not_found).with_state(state.clone()))
}

/// The wasm, JS and CSS. Their names carry content hashes when `hashed`, so browsers may
/// keep them for a year; brotli and gzip copies made at build time are served to
/// browsers that take them; a miss (or a path trick such as `..`) is a 404 problem.
fn static_assets(site_root: &str, hashed: bool) -> Router {
    let files = ServeDir::new(std::path::Path::new(site_root).join("pkg"))
        .precompressed_br()
        .precompressed_gzip()
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

/// An import's lines of progress (`application/x-ndjson`).
fn is_progress_stream(headers: &HeaderMap) -> bool {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|t| {
            t.as_bytes()
                .starts_with(app::api::IMPORT_PROGRESS_TYPE.as_bytes())
        })
}
