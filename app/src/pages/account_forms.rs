//! The pages that let a person in and manage their account: sign in, set up the first
//! account, accept an invitation, the account page, the admin's page. Each is a plain form
//! the server handles (they work without JavaScript); a failure comes back as an error
//! code in the address, which is turned into words here (nothing typed is reflected).

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::api::ProblemSlug;
use crate::components::account_files::AccountFiles;
use crate::components::account_tokens::AccountTokens;
use crate::components::import_form::ImportForm;
use crate::components::local_time::LocalTime;
use crate::data;

/// The words for an error code a form came back with.
fn explain(code: &str, retry: Option<u64>) -> String {
    match ProblemSlug::parse(code) {
        Some(ProblemSlug::InvalidCredentials) => "The username or the password is wrong.".into(),
        // A wait of a second is not a lockout: the server was checking as many sign-ins as
        // it lets through at once (a second tab, a script), and nothing failed.
        Some(ProblemSlug::TooManyAttempts) if retry.is_some_and(|r| r <= 1) => {
            "Too many sign-ins at once. Try again in a second.".into()
        }
        Some(ProblemSlug::TooManyAttempts) => format!(
            "Too many failed sign-ins. Try again in {} minute(s).",
            retry.unwrap_or(900).div_ceil(60)
        ),
        Some(ProblemSlug::Unauthenticated) => "Your session ended; sign in again.".into(),
        Some(ProblemSlug::SetupDone) => "The first account exists already; sign in instead.".into(),
        Some(ProblemSlug::SetupLinkInvalid) => {
            "This setup link is not valid: use the link the server printed in its log.".into()
        }
        Some(ProblemSlug::InvitationGone) => {
            "This invitation was used already or has expired; ask for a new one.".into()
        }
        Some(ProblemSlug::SignupClosed) => "This server takes new people by invitation only.".into(),
        Some(ProblemSlug::UsernameTaken) => "This username is taken; choose another.".into(),
        Some(ProblemSlug::ValidationFailed) => "A username holds letters, digits, '.', '_' and '-'; a password has at least 8 characters.".into(),
        Some(ProblemSlug::WrongPassword) => "The current password is wrong.".into(),
        Some(ProblemSlug::AdminOnly) => "Only an admin can do this.".into(),
        _ => "That did not work; try again.".into(),
    }
}

/// The error the form came back with, in words, as an alert.
#[component]
fn FormError() -> impl IntoView {
    let query = use_query_map();
    move || {
        query.with(|q| {
            q.get("error").map(|code| {
                let retry = q.get("retry").and_then(|r| r.parse().ok());
                view! { <p class="notice" role="alert">{explain(&code, retry)}</p> }
            })
        })
    }
}

/// Username and password fields.
#[component]
fn Credentials(#[prop(optional)] new_password: bool) -> impl IntoView {
    let autocomplete = if new_password {
        "new-password"
    } else {
        "current-password"
    };
    view! {
        <label for="username">"Username"</label>
        <input id="username" name="username" type="text" autocomplete="username" required />
        <label for="password">"Password"</label>
        <input id="password" name="password" type="password" autocomplete=autocomplete required />
    }
}

/// `/sign-in`.
#[component]
pub fn SignInPage() -> impl IntoView {
    let query = use_query_map();
    // Only a path on this site is carried on (the server checks it again).
    let next = move || {
        query.with(|q| {
            q.get("next")
                .filter(|next| crate::api::local_path(next).is_some())
                .unwrap_or_else(|| "/".into())
        })
    };
    let signed_out = move || query.with(|q| q.get("signed_out").is_some());
    view! {
        <section class="account-form" aria-labelledby="sign-in-heading">
            <h2 id="sign-in-heading">"Sign in"</h2>
            <Show when=signed_out>
                <p class="muted" role="status">"You are signed out."</p>
            </Show>
            <FormError />
            <form class="compose" method="post" action="/sign-in">
                <input type="hidden" name="next" value=next />
                <Credentials />
                <div class="actions"><button type="submit">"Sign in"</button></div>
            </form>
            <NewHere />
        </section>
    }
}

/// How a new person gets in: sign up where that is open, else ask for an invitation.
#[component]
fn NewHere() -> impl IntoView {
    let open = Resource::new(|| (), |_| data::signup_open());
    view! {
        <Suspense>
            {move || Suspend::new(async move {
                if open.await.unwrap_or(false) {
                    view! { <p class="muted">"New here? " <a href="/sign-up" rel="external">"Create an account"</a></p> }.into_any()
                } else {
                    view! { <p class="muted">"New here? Ask the person who runs this server for an invitation."</p> }.into_any()
                }
            })}
        </Suspense>
    }
}

/// `/sign-up`: make an account, where the server lets anyone (`ONCENOTE_SIGNUP=open`).
#[component]
pub fn SignUpPage() -> impl IntoView {
    let open = Resource::new(|| (), |_| data::signup_open());
    view! {
        <section class="account-form" aria-labelledby="sign-up-heading">
            <h2 id="sign-up-heading">"Create an account"</h2>
            <FormError />
            <Suspense>
                {move || Suspend::new(async move {
                    if open.await.unwrap_or(false) {
                        view! {
                            <p class="muted">"Choose a username and a password (at least 8 characters)."</p>
                            <form class="compose" method="post" action="/sign-up">
                                <Credentials new_password=true />
                                <div class="actions"><button type="submit">"Create my account"</button></div>
                            </form>
                        }.into_any()
                    } else {
                        view! { <p>"This server takes new people by invitation only: ask the person who runs it for an invitation link."</p> }.into_any()
                    }
                })}
            </Suspense>
            <p class="muted">"Have an account? " <a href="/sign-in" rel="external">"Sign in"</a></p>
        </section>
    }
}

/// `/setup?token=`: the first account, from the link the server printed.
#[component]
pub fn SetupPage() -> impl IntoView {
    let query = use_query_map();
    let token = move || query.with(|q| q.get("token").unwrap_or_default());
    view! {
        <section class="account-form" aria-labelledby="setup-heading">
            <h2 id="setup-heading">"Create the first account"</h2>
            <FormError />
            <Show
                when=move || !token().is_empty()
                fallback=|| view! {
                    <p>"No account exists yet. Open the setup link the server printed in its log when it started (it works once), or start the server with ONCENOTE_ADMIN_USERNAME and ONCENOTE_ADMIN_PASSWORD set."</p>
                }
            >
                <p class="muted">"This account will be the admin: it can invite others."</p>
                <form class="compose" method="post" action="/setup">
                    <input type="hidden" name="token" value=token />
                    <Credentials new_password=true />
                    <div class="actions"><button type="submit">"Create the account"</button></div>
                </form>
            </Show>
        </section>
    }
}

/// `/invite/{token}`: make an account with an invitation.
#[component]
pub fn InvitePage() -> impl IntoView {
    let params = use_params_map();
    let action = move || params.with(|p| format!("/invite/{}", p.get("token").unwrap_or_default()));
    view! {
        <section class="account-form" aria-labelledby="invite-heading">
            <h2 id="invite-heading">"You are invited"</h2>
            <FormError />
            <p class="muted">"Choose a username and a password (at least 8 characters)."</p>
            <form class="compose" method="post" action=action>
                <Credentials new_password=true />
                <div class="actions"><button type="submit">"Create my account"</button></div>
            </form>
        </section>
    }
}

/// `/account`: change the password, export and import, the files in notes, tokens for
/// scripts, sign out.
#[component]
pub fn AccountPage() -> impl IntoView {
    let query = use_query_map();
    let changed = move || query.with(|q| q.get("changed").is_some());
    view! {
        <section class="account" aria-labelledby="account-heading">
            <h2 id="account-heading">"Your account"</h2>
            <AccountName />
            <FormError />
            <Show when=changed>
                <p class="notice-item" role="status">"Your password is changed. Every other session of yours has ended."</p>
            </Show>
            <h3>"Change your password"</h3>
            <form class="compose" method="post" action="/account/password">
                <label for="current-password">"Current password"</label>
                <input id="current-password" name="current_password" type="password" autocomplete="current-password" required />
                <label for="new-password">"New password"</label>
                <input id="new-password" name="new_password" type="password" autocomplete="new-password" required />
                <div class="actions"><button type="submit">"Change the password"</button></div>
            </form>
            <h3>"Your notes, to take away"</h3>
            <p>
                <a href="/api/export" rel="external" download>"Export every note"</a>
                " — a zip with one JSON file of all your notes, a Markdown file for each, and your files."
            </p>
            <ImportForm />
            <AccountFiles />
            <AccountTokens />
        </section>
    }
}

/// "Signed in as …".
#[component]
fn AccountName() -> impl IntoView {
    let me = Resource::new(|| (), |_| data::me());
    view! {
        <Suspense>
            {move || Suspend::new(async move {
                me.await.ok().flatten().map(|me| view! {
                    <p class="muted">"Signed in as " <strong>{me.username}</strong> {if me.admin { " (admin)" } else { "" }}</p>
                })
            })}
        </Suspense>
    }
}

/// `/admin`: the people on this server; invite, disable, enable.
#[component]
pub fn AdminPage() -> impl IntoView {
    let query = use_query_map();
    let users = Resource::new(|| (), |_| data::users());
    let me = Resource::new(|| (), |_| data::me());
    let invitation = move || query.with(|q| q.get("invitation"));
    view! {
        <section class="admin" aria-labelledby="admin-heading">
            <h2 id="admin-heading">"People on this server"</h2>
            <FormError />
            {move || invitation().map(|token| view! { <InvitationLink token /> })}
            <form class="invite" method="post" action="/admin/invitations">
                <button type="submit">"Invite someone"</button>
            </form>
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let me = me.await.ok().flatten().map(|me| me.user_id);
                    match users.await {
                        Ok(users) => view! {
                            <ul class="notes users">
                                {users
                                    .into_iter()
                                    .map(|user| {
                                        let you = me.as_deref() == Some(user.id.as_str());
                                        view! { <UserItem user you /> }
                                    })
                                    .collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// A new invitation's link, shown once — whole as the server renders it, so it can be
/// copied before the page hydrates, or without JavaScript.
#[component]
fn InvitationLink(token: String) -> impl IntoView {
    let link = format!("{}/invite/{token}", site_address());
    view! {
        <div class="notice-item" role="status">
            <p>"Send this link to the person you invite. It works once, for 7 days:"</p>
            <p><code data-testid="invitation-link">{link}</code></p>
        </div>
    }
}

/// Where people reach this server: the server's word when rendering, the page's own
/// origin in the browser (hydration keeps the server's text).
fn site_address() -> String {
    #[cfg(feature = "ssr")]
    if let Some(address) = use_context::<crate::ssr_context::SiteAddress>() {
        return address.0;
    }
    #[cfg(feature = "hydrate")]
    if let Some(origin) = web_sys::window().and_then(|w| w.location().origin().ok()) {
        return origin;
    }
    String::new()
}

/// One person; `you` (the admin looking) cannot disable their own account.
#[component]
fn UserItem(user: crate::api::AccountUser, you: bool) -> impl IntoView {
    let action = if user.disabled {
        format!("/admin/users/{}/enable", user.id)
    } else {
        format!("/admin/users/{}/disable", user.id)
    };
    let label = if user.disabled { "Enable" } else { "Disable" };
    let role = if user.admin { " · admin" } else { "" };
    let state = if user.disabled { " · disabled" } else { "" };
    let you_mark = if you { " · you" } else { "" };
    view! {
        <li class="note">
            <h3 class="note-title">{user.username.clone()}</h3>
            <p class="meta">"Since " <LocalTime at=user.created_at.clone() /> {role} {state} {you_mark}</p>
            <Show when=move || !you>
                <form method="post" action=action.clone()>
                    <button type="submit" aria-label=format!("{label} {}", user.username)>{label}</button>
                </form>
            </Show>
        </li>
    }
}
