//! The container image's files agree with the server and with each other: what
//! `deploy/container/Containerfile` promises (its user, volume, port, environment,
//! healthcheck, stop signal), what the two compose files ask of it, and which variables
//! the server reads, as `deploy/oncenote.env.example`, the README and `server --help`
//! document them. `scripts/container-check.sh` then builds the image and runs it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use clap::CommandFactory;
use server::cli::Cli;
use server::config::Config;
use yaml_rust2::{Yaml, YamlLoader};

fn read(path: &str) -> String {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|error| panic!("{full}: {error}"))
}

/// Every variable the server reads: each one the configuration asks for, and the log
/// filter (read by the logging set-up).
fn server_variables() -> BTreeSet<String> {
    let asked = Mutex::new(BTreeSet::new());
    Config::from_lookup(|name| {
        asked.lock().unwrap().insert(name.to_owned());
        None
    })
    .expect("no configuration at all is a good one");
    let mut names = asked.into_inner().unwrap();
    names.insert("RUST_LOG".to_owned());
    assert!(names.len() > 30, "{names:?}");
    names
}

/// The instructions of the Containerfile that the image's users rely on.
#[derive(Debug, Default)]
struct Containerfile {
    from: String,
    user: String,
    volumes: Vec<String>,
    exposed: Vec<u16>,
    env: BTreeMap<String, String>,
    copies: Vec<(Vec<String>, String)>,
    healthcheck: Vec<String>,
    stop_signal: String,
    entrypoint: Vec<String>,
}

impl Containerfile {
    fn read() -> Self {
        let text = read("deploy/container/Containerfile");
        let mut file = Containerfile::default();
        let mut logical = String::new();
        for line in text.lines() {
            if line.trim_start().starts_with('#') {
                continue;
            }
            match line.strip_suffix('\\') {
                Some(start) => {
                    logical.push_str(start);
                    logical.push(' ');
                    continue;
                }
                None => logical.push_str(line),
            }
            let instruction = std::mem::take(&mut logical);
            let Some((word, rest)) = instruction.trim().split_once(' ') else {
                continue;
            };
            let rest = rest.trim();
            let words = || {
                rest.split_whitespace()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            };
            let json = |s: &str| serde_json::from_str::<Vec<String>>(s).unwrap();
            match word {
                "FROM" => file.from = rest.to_owned(),
                "USER" => file.user = rest.to_owned(),
                "VOLUME" => file.volumes = words(),
                "EXPOSE" => file.exposed = words().iter().map(|p| p.parse().unwrap()).collect(),
                "ENV" => {
                    for pair in words() {
                        let (name, value) = pair.split_once('=').expect("ENV NAME=value");
                        file.env.insert(name.to_owned(), value.to_owned());
                    }
                }
                "COPY" => {
                    let mut paths: Vec<String> = words()
                        .into_iter()
                        .filter(|w| !w.starts_with("--"))
                        .collect();
                    let to = paths.pop().unwrap();
                    file.copies.push((paths, to));
                }
                "HEALTHCHECK" => {
                    let (_, command) = rest.split_once("CMD ").expect("HEALTHCHECK … CMD [...]");
                    file.healthcheck = json(command);
                }
                "STOPSIGNAL" => file.stop_signal = rest.to_owned(),
                "ENTRYPOINT" => file.entrypoint = json(rest),
                _ => {}
            }
        }
        file
    }

    fn volume(&self) -> &str {
        assert_eq!(self.volumes.len(), 1, "{:?}", self.volumes);
        &self.volumes[0]
    }

    fn port(&self) -> u16 {
        assert_eq!(self.exposed.len(), 1, "{:?}", self.exposed);
        self.exposed[0]
    }
}

#[test]
fn every_variable_the_server_reads_is_documented_in_the_readme_the_env_example_and_help() {
    let readme = read("README.md");
    let example = read("deploy/oncenote.env.example");
    let help = Cli::command().render_long_help().to_string();
    for name in server_variables() {
        assert!(
            readme.contains(&format!("`{name}`")),
            "{name} is not in the README's table"
        );
        assert!(
            example.contains(&format!("#{name}=")),
            "{name} is not in deploy/oncenote.env.example"
        );
        assert!(help.contains(&name), "{name} is not in `server --help`");
    }
}

#[test]
fn the_image_builds_from_debian_slim_pinned_by_digest_and_runs_as_a_user_that_is_not_root() {
    let file = Containerfile::read();
    let (name, digest) = file
        .from
        .split_once("@sha256:")
        .expect("FROM name@sha256:…");
    assert!(
        name.starts_with("docker.io/library/debian:") && name.ends_with("-slim"),
        "{name}"
    );
    assert!(
        digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit()),
        "{digest}"
    );
    let (uid, gid) = file.user.split_once(':').expect("USER uid:gid");
    assert!(uid.parse::<u32>().unwrap() > 0 && gid.parse::<u32>().unwrap() > 0);
}

#[test]
fn the_image_s_settings_are_variables_the_server_reads_and_keep_its_data_on_the_volume() {
    let file = Containerfile::read();
    let known = server_variables();
    for name in file.env.keys() {
        assert!(
            known.contains(name),
            "the image sets {name}, which the server never reads"
        );
    }
    let volume = file.volume();
    let database = &file.env["DATABASE_URL"];
    assert!(
        database.starts_with(&format!("sqlite://{volume}/")),
        "the image's SQLite database {database} is not on its volume {volume}"
    );
    assert!(file.env["ONCENOTE_SPOOL_DIR"].starts_with(&format!("{volume}/")));
    let config = Config::from_lookup(|name| file.env.get(name).cloned()).unwrap();
    assert!(
        config.site_addr.ip().is_unspecified(),
        "{}",
        config.site_addr
    );
    assert_eq!(
        config.site_addr.port(),
        file.port(),
        "EXPOSE and LEPTOS_SITE_ADDR differ"
    );
}

#[test]
fn the_image_holds_the_server_with_hash_txt_beside_it_and_the_site_where_it_is_looked_for() {
    let file = Containerfile::read();
    let server = &file.entrypoint[0];
    let folder = server.rsplit_once('/').unwrap().0;
    let copied = |from: &str| {
        file.copies
            .iter()
            .find(|(sources, _)| sources.iter().any(|s| s == from))
            .map(|(_, to)| to.trim_end_matches('/').to_owned())
            .unwrap_or_else(|| panic!("{from} is not copied into the image"))
    };
    assert_eq!(copied("target/release/server"), folder);
    assert_eq!(format!("{folder}/server"), *server);
    assert_eq!(
        copied("target/release/hash.txt"),
        folder,
        "hash.txt must sit beside the server"
    );
    assert_eq!(copied("target/site"), file.env["LEPTOS_SITE_ROOT"]);
    // The build context lets in exactly what is copied.
    let ignore = read(".dockerignore");
    let let_in: BTreeSet<&str> = ignore.lines().filter_map(|l| l.strip_prefix('!')).collect();
    let sources: BTreeSet<&str> = file
        .copies
        .iter()
        .flat_map(|(sources, _)| sources.iter().map(String::as_str))
        .collect();
    assert_eq!(let_in, sources);
    assert!(
        ignore.lines().any(|l| l == "*"),
        ".dockerignore must leave out everything else"
    );
}

#[test]
fn the_healthcheck_asks_the_server_itself_and_the_stop_is_sigterm() {
    let file = Containerfile::read();
    assert_eq!(file.healthcheck[0], file.entrypoint[0]);
    let mut args = vec!["server".to_owned()];
    args.extend(file.healthcheck[1..].iter().cloned());
    let parsed = <Cli as clap::Parser>::try_parse_from(&args).expect("the healthcheck parses");
    assert_eq!(parsed.command, Some(server::cli::Command::Healthcheck));
    assert_eq!(file.stop_signal, "SIGTERM");
}

fn compose(path: &str) -> Yaml {
    let mut docs = YamlLoader::load_from_str(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(docs.len(), 1, "{path}");
    docs.remove(0)
}

fn keys(yaml: &Yaml) -> BTreeSet<String> {
    yaml.as_hash()
        .map(|hash| {
            hash.keys()
                .filter_map(|k| k.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn strings(yaml: &Yaml) -> Vec<String> {
    yaml.as_vec()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn seconds(duration: &str) -> u64 {
    duration
        .strip_suffix('s')
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            panic!("a duration in seconds like 35s, got {duration}");
        })
}

/// What both compose files ask of the oncenote service, checked against the image.
fn check_oncenote_service(
    path: &str,
    doc: &Yaml,
    file: &Containerfile,
) -> BTreeMap<String, String> {
    let service = &doc["services"]["oncenote"];
    let image_script = read("scripts/image.sh");
    let image = service["image"].as_str().expect("an image");
    assert!(
        image_script.contains(&format!("--tag {image}")),
        "{path}: {image} is not the name scripts/image.sh tags"
    );
    assert_eq!(
        service["pull_policy"].as_str(),
        Some("never"),
        "{path}: never pull a name no registry serves"
    );

    let environment: BTreeMap<String, String> = service["environment"]
        .as_hash()
        .expect("environment: as a map")
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().unwrap().to_owned(),
                v.as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let known = server_variables();
    for name in environment.keys() {
        assert!(
            known.contains(name),
            "{path} sets {name}, which the server never reads"
        );
    }

    let ports = strings(&service["ports"]);
    assert_eq!(ports.len(), 1, "{path}: {ports:?}");
    let container_port: u16 = ports[0].rsplit(':').next().unwrap().parse().unwrap();
    assert_eq!(
        container_port,
        file.port(),
        "{path} publishes a port the image does not listen on"
    );
    assert!(
        ports[0].starts_with("127.0.0.1:"),
        "{path}: published beyond this machine by default"
    );

    let volumes = strings(&service["volumes"]);
    let data = volumes
        .iter()
        .find_map(|v| {
            v.split_once(':')
                .filter(|(_, at)| *at == file.volume())
                .map(|(name, _)| name)
        })
        .unwrap_or_else(|| {
            panic!(
                "{path}: nothing is mounted at the image's volume {}",
                file.volume()
            )
        });
    assert!(
        keys(&doc["volumes"]).contains(data),
        "{path}: /data must be a named volume declared under volumes:"
    );

    // A read-only root file system works because everything written is on the volume
    // (the database, the upload spool) or in /tmp.
    if service["read_only"].as_bool() == Some(true) {
        assert!(
            strings(&service["tmpfs"]).contains(&"/tmp".to_owned()),
            "{path}"
        );
    }
    // Connections through the published port come from the network's gateway (Docker's
    // port proxy): the address to trust when a proxy on the host is in front, as the file
    // says.
    let gateway = doc["networks"]["default"]["ipam"]["config"][0]["gateway"]
        .as_str()
        .unwrap_or_else(|| panic!("{path}: pin the network's gateway"));
    assert!(
        read(path).contains(&format!("ONCENOTE_TRUSTED_PROXIES={gateway}")),
        "{path}: say which address to trust behind a proxy on the host: {gateway}"
    );
    let grace = seconds(
        service["stop_grace_period"]
            .as_str()
            .expect("stop_grace_period"),
    );
    assert!(
        grace > server::serve::SHUTDOWN_GRACE.as_secs(),
        "{path}: {grace} s leaves the server's {} s drain no time to close the database",
        server::serve::SHUTDOWN_GRACE.as_secs()
    );
    environment
}

#[test]
fn the_compose_file_runs_oncenote_on_postgresql_that_is_pinned_unpublished_and_on_a_named_volume() {
    let path = "deploy/container/compose.yaml";
    let doc = compose(path);
    let file = Containerfile::read();
    assert_eq!(
        keys(&doc["services"]),
        BTreeSet::from(["oncenote".into(), "postgres".into()])
    );
    let environment = check_oncenote_service(path, &doc, &file);

    let postgres = &doc["services"]["postgres"];
    let image = postgres["image"].as_str().unwrap();
    let tag = image
        .rsplit_once(':')
        .map(|(_, tag)| tag)
        .expect("postgres pinned by a tag");
    let major = tag.split('-').next().unwrap();
    assert!(
        major.parse::<u32>().is_ok_and(|m| m >= 13),
        "{image}: pin a major version (13 or later)"
    );
    assert!(
        postgres["ports"].is_badvalue(),
        "PostgreSQL must not be published to the host"
    );
    let volumes = strings(&postgres["volumes"]);
    let (volume, at) = volumes[0].split_once(':').unwrap();
    assert_eq!(at, "/var/lib/postgresql/data");
    assert!(
        keys(&doc["volumes"]).contains(volume),
        "its data on a named volume"
    );
    assert!(!postgres["healthcheck"].is_badvalue());
    assert_eq!(
        doc["services"]["oncenote"]["depends_on"]["postgres"]["condition"].as_str(),
        Some("service_healthy")
    );

    // oncenote's DATABASE_URL names this service, its user, its password and its database.
    let pg_env = &postgres["environment"];
    let user = pg_env["POSTGRES_USER"].as_str().unwrap();
    let password = pg_env["POSTGRES_PASSWORD"].as_str().unwrap();
    let database = pg_env["POSTGRES_DB"].as_str().unwrap();
    assert!(
        password.starts_with("${POSTGRES_PASSWORD:?"),
        "the password must be given, never a default"
    );
    assert_eq!(
        environment["DATABASE_URL"],
        format!("postgres://{user}:{password}@postgres:5432/{database}")
    );
}

#[test]
fn the_sqlite_compose_file_runs_oncenote_alone_with_its_database_on_the_volume() {
    let path = "deploy/container/compose.sqlite.yaml";
    let doc = compose(path);
    let file = Containerfile::read();
    assert_eq!(keys(&doc["services"]), BTreeSet::from(["oncenote".into()]));
    let environment = check_oncenote_service(path, &doc, &file);
    // Its own project (and so its own volume and network), never mixed with compose.yaml's.
    assert_ne!(
        doc["name"],
        compose("deploy/container/compose.yaml")["name"]
    );
    assert_ne!(
        doc["networks"]["default"]["ipam"]["config"][0]["subnet"],
        compose("deploy/container/compose.yaml")["networks"]["default"]["ipam"]["config"][0]["subnet"]
    );
    // The image's own DATABASE_URL: SQLite on the volume (checked above).
    assert!(!environment.contains_key("DATABASE_URL"), "{environment:?}");
    assert!(file.env["DATABASE_URL"].starts_with("sqlite://"));
}

#[test]
fn the_readme_s_quick_start_names_the_image_as_the_third_way_to_run_it() {
    let readme = read("README.md");
    let quick_start = readme
        .split("## Quick start")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a Quick start section");
    assert!(quick_start.contains("scripts/image.sh"), "{quick_start}");
    let self_hosting = read("docs/SELF-HOSTING.md");
    assert!(self_hosting.contains("## In a container"));
    for file in ["compose.yaml", "compose.sqlite.yaml"] {
        assert!(
            self_hosting.contains(file),
            "docs/SELF-HOSTING.md does not mention {file}"
        );
    }
}

/// The value of a systemd unit's `Key=` lines (every one, in order).
fn unit_values<'a>(unit: &'a str, key: &str) -> Vec<&'a str> {
    unit.lines()
        .filter_map(|line| line.trim().strip_prefix(key)?.strip_prefix('='))
        .collect()
}

#[test]
fn both_systemd_units_raise_the_open_file_limit_and_spool_uploads_on_disk() {
    for (path, writable) in [
        ("deploy/oncenote.service", "/var/lib/oncenote/"),
        ("deploy/oncenote@.service", "/var/cache/oncenote/"),
    ] {
        let unit = read(path);
        // At the usual 1024 the connection cap would drop to 896 of the 4,096.
        assert_eq!(unit_values(&unit, "LimitNOFILE"), ["65536"], "{path}");
        // PrivateTmp's /tmp is often memory: the spool (about 3 GiB at the limits) is
        // kept on the unit's own writable directory instead.
        let spool = unit_values(&unit, "Environment")
            .into_iter()
            .find_map(|e| e.strip_prefix("ONCENOTE_SPOOL_DIR="))
            .unwrap_or_else(|| panic!("{path} names no ONCENOTE_SPOOL_DIR"));
        assert!(spool.starts_with(writable), "{path}: {spool}");
        let directories = [
            unit_values(&unit, "StateDirectory"),
            unit_values(&unit, "CacheDirectory"),
        ]
        .concat();
        assert!(
            directories.iter().any(|d| writable
                .trim_end_matches('/')
                .ends_with(d.split('/').next().unwrap())),
            "{path}: systemd makes no writable {writable}"
        );
    }
}

#[test]
fn the_caddyfiles_let_through_the_largest_import_the_server_takes_and_little_more() {
    let server_takes = server::notes::transfer::import::IMPORT_MAX_BYTES
        + server::config::FILE_QUOTA_BYTES_DEFAULT;
    for path in ["deploy/Caddyfile", "deploy/Caddyfile.replicas"] {
        let caddyfile = read(path);
        let block = caddyfile
            .split("request_body @import {")
            .nth(1)
            .unwrap_or_else(|| panic!("{path}: no request_body for @import"));
        let size = block
            .lines()
            .find_map(|l| l.trim().strip_prefix("max_size "))
            .expect("max_size");
        let caddy_takes: u64 = match size.strip_suffix("MiB") {
            Some(mib) => mib.parse::<u64>().unwrap() << 20,
            None => panic!("{path}: write the import's max_size in MiB, got {size}"),
        };
        assert!(
            caddy_takes >= server_takes && caddy_takes <= server_takes + server_takes / 10,
            "{path}: Caddy takes {caddy_takes} bytes of an import, the server {server_takes}"
        );
    }
}
