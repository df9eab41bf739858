//! The process's open-file limit, which bounds how many connections it can hold: every
//! connection is a file descriptor, and so is every database connection and file the
//! server opens. At start the soft limit is raised to the hard one where the system
//! allows it (the systemd unit sets `LimitNOFILE` and forbids raising it in-process), and
//! the connection cap is kept below what is left, so a flood of connections is refused
//! with 503 before the database or `/healthz` run out of descriptors.

/// Descriptors kept for everything but client connections: database connections, the
/// SQLite files, the site's files being served, the log.
const RESERVED: u64 = 128;

/// The soft limit on open files after raising it as far as allowed, where it is known.
pub fn raise_to_hard_limit() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit read and write the struct passed, nothing else.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return None;
            }
            if limit.rlim_cur < limit.rlim_max {
                let raised = libc::rlimit {
                    rlim_cur: limit.rlim_max,
                    rlim_max: limit.rlim_max,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    limit.rlim_cur = limit.rlim_max;
                }
            }
        }
        Some(limit.rlim_cur)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}

/// The connection cap to use: the configured one, lowered to what `open_files` leaves
/// after the reserve.
pub fn connection_cap(configured: usize, open_files: Option<u64>) -> usize {
    match open_files {
        Some(limit) => configured.min(limit.saturating_sub(RESERVED).max(1) as usize),
        None => configured,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_room_for_the_database_under_the_open_file_limit() {
        assert_eq!(connection_cap(4096, Some(1024)), 1024 - RESERVED as usize);
        assert_eq!(connection_cap(500, Some(65_536)), 500);
        assert_eq!(connection_cap(4096, None), 4096);
        assert_eq!(connection_cap(4096, Some(10)), 1);
    }

    #[test]
    fn the_soft_limit_is_raised_as_far_as_allowed() {
        if let Some(limit) = raise_to_hard_limit() {
            assert!(limit > 0);
        }
    }
}
