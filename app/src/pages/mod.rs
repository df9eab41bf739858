//! One file per page (route).

pub mod home;
