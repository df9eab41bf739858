use server::config::Config;
use server::startup::Application;
use server::{shutdown, telemetry};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    telemetry::init();
    let config = Config::from_env()?;
    let database = config.database.to_string();
    let app = Application::build(config).await?;
    tracing::info!(database = %database, "oncenote listening on http://{}", app.local_addr());
    app.run_until(shutdown::signal()).await?;
    Ok(())
}
