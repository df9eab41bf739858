//! A TCP proxy in front of the PostgreSQL server, to crash and restart "the database"
//! under a running app without touching the real server (which other tests share):
//! [`DbProxy::crash`] resets every open connection (RST, as a killed server's kernel
//! does) and refuses new ones; [`DbProxy::restart`] accepts them again on the same port.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

pub struct DbProxy {
    port: u16,
    target: String,
    state: Arc<Mutex<ProxyState>>,
}

#[derive(Default)]
struct ProxyState {
    listener: Option<JoinHandle<()>>,
    connections: Vec<JoinHandle<()>>,
}

impl DbProxy {
    /// A proxy to the server of `url` (`postgres://user@host:port/db`).
    pub async fn start(url: &str) -> Self {
        let target = url
            .split_once('@')
            .and_then(|(_, rest)| rest.split_once('/'))
            .map(|(address, _)| address.to_owned())
            .expect("a postgres://user@host:port/db URL");
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("an address").port();
        let proxy = Self {
            port,
            target,
            state: Arc::default(),
        };
        proxy.serve(listener);
        proxy
    }

    /// `url` with the proxy in place of the server.
    pub fn url(&self, url: &str) -> String {
        url.replacen(&self.target, &format!("127.0.0.1:{}", self.port), 1)
    }

    /// The database server "dies": every open connection is reset, new ones are refused.
    pub fn crash(&self) {
        let mut state = self.state.lock().unwrap();
        if let Some(listener) = state.listener.take() {
            listener.abort();
        }
        for connection in state.connections.drain(..) {
            connection.abort();
        }
    }

    /// The database server is back on the same port.
    pub async fn restart(&self) {
        let address = format!("127.0.0.1:{}", self.port);
        for _ in 0..50 {
            if let Ok(listener) = TcpListener::bind(&address).await {
                self.serve(listener);
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the proxy could not listen on {address} again");
    }

    fn serve(&self, listener: TcpListener) {
        let (state, target) = (self.state.clone(), self.target.clone());
        let accepting = tokio::spawn({
            let state = state.clone();
            async move {
                while let Ok((client, _)) = listener.accept().await {
                    let target = target.clone();
                    let connection = tokio::spawn(async move {
                        let Ok(server) = TcpStream::connect(&target).await else {
                            return;
                        };
                        // Dropped (aborted) with a zero linger: the app sees a reset, not
                        // an orderly close.
                        #[allow(deprecated)]
                        let _ = client.set_linger(Some(Duration::ZERO));
                        let (mut client, mut server) = (client, server);
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    });
                    state.lock().unwrap().connections.push(connection);
                }
            }
        });
        state.lock().unwrap().listener = Some(accepting);
    }
}

impl Drop for DbProxy {
    fn drop(&mut self) {
        self.crash();
    }
}
