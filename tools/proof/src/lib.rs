//! Tools that make the exactly-once claim measurable: a fault-injecting proxy, the
//! server as a child process that can be killed, the invariant checks run against the
//! database itself, the load driver that uses the client's own save core, and the
//! benchmark's figures.

pub mod bench;
pub mod fault_proxy;
pub mod follow_up;
pub mod invariants;
pub mod load;
pub mod record;
pub mod send;
pub mod server_process;
pub mod stats;
