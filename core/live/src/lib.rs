//! vmap-live: this machine's vmalloc space followed as it changes, served to the page on
//! 127.0.0.1 only.
//!
//! ```text
//!   source (a recorded bundle at speed, or tracefs) --> recorder (the session's bundle, on disk)
//!                                                   --> follower (replay_capture on a cadence)
//!                                                   --> feed (the page's /feed, Server-Sent Events)
//! ```

pub mod bundle;
pub mod feed;
pub mod files;
pub mod follow;
pub mod gate;
pub mod server;
pub mod source;
pub mod tracefs;
