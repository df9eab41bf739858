use clap::Parser;
use server::cli::{self, Cli, Command};
use server::config::Config;
use server::startup::Application;
use server::{healthcheck, shutdown, telemetry};

/// jemalloc, not the C library's allocator: an idle connection's two 8 KiB buffers (hyper's,
/// of fixed size) then hold only the pages written to, instead of those and the headers
/// glibc writes between its chunks (README, "Benchmarking": 10,000 live streams).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    server::memory::return_large_buffers_to_the_os();
    match Cli::parse().command.unwrap_or(Command::Serve) {
        Command::Serve => serve().await,
        Command::CheckConfig => match cli::check_config(Config::from_env()) {
            Ok(lines) => {
                println!("The configuration is good:");
                lines.iter().for_each(|line| println!("  {line}"));
                Ok(())
            }
            Err(problems) => {
                eprintln!("The configuration would not start the server:");
                problems
                    .iter()
                    .for_each(|problem| eprintln!("  - {problem}"));
                std::process::exit(2);
            }
        },
        Command::Healthcheck => match healthcheck::probe(Config::from_env()?.site_addr).await {
            Ok(body) => {
                println!("healthy: {body}");
                Ok(())
            }
            Err(why) => {
                eprintln!("unhealthy: {why}");
                std::process::exit(1);
            }
        },
        Command::CopyTo { target } => {
            print!("{}", cli::copy_to(&Config::from_env()?, &target).await?);
            Ok(())
        }
        Command::Backup { path } => {
            println!("{}", cli::backup(&Config::from_env()?, &path).await?);
            Ok(())
        }
    }
}

async fn serve() -> anyhow::Result<()> {
    telemetry::init();
    let config = Config::from_env()?;
    let database = config.database.to_string();
    let app = Application::build(config).await?;
    tracing::info!(database = %database, "oncenote listening on http://{}", app.local_addr());
    app.run_until(shutdown::signal()).await?;
    Ok(())
}
