//! How every router answers a method it does not have.

use axum::routing::MethodRouter;

use crate::error::ApiError;

/// A route's other methods answer 405 with `Allow` naming the ones it has.
pub fn allow<S>(route: MethodRouter<S>, methods: &'static str) -> MethodRouter<S>
where
    S: Clone + Send + Sync + 'static,
{
    route.fallback(move || async move { ApiError::MethodNotAllowed { allow: methods } })
}
