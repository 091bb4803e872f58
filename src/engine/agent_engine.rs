//! The engine of one agent: what it holds (config, host, and its per-process state as
//! parts) and how it is made. Its behaviour lives beside it, one file per concern; each part
//! is defined in the file that uses it.

use crate::config::Config;
use crate::host::Host;
use crate::lifecycle::inert::{HostFacts, Inert};
use crate::openviking::probe::LocalServerFacts;
use std::cell::RefCell;

/// One agent's engine: its config, its host, and one field per part of its per-process
/// state. A part owns its fields (`Cell`/`RefCell`: the engine is shared by reference in one
/// thread) and the methods that touch only them; what needs two parts or the host stays on
/// `Engine`. No borrow of a part is held across an `.await`.
pub struct Engine<H: Host> {
    pub config: Config,
    pub host: H,
    /// What this engine knows of its surroundings: user id, host, local server, outages.
    pub(super) seen: Surroundings,
    /// The session records this process holds (`record`).
    pub(super) records: super::record::Records,
    /// Who follows which commit task (`commit`).
    pub(super) followers: super::commit::Followers,
    /// The outbox replays running and what they know of the live messages (`outbox`).
    pub(super) replay: super::outbox::Replay,
    /// The turns being written now (`write`).
    pub(super) writing: super::write::Writing,
    /// What the read path keeps between calls (`read`).
    pub(super) reads: super::read::ReadCache,
    /// What this process knows of the agent's memory queue (`memory_queue`).
    pub(super) memory_queue: super::memory_queue::MemoryQueueState,
}

impl<H: Host> Engine<H> {
    pub fn new(config: Config, host: H) -> Self {
        Engine {
            config,
            host,
            seen: Surroundings::default(),
            records: Default::default(),
            replay: Default::default(),
            followers: Default::default(),
            writing: Default::default(),
            reads: Default::default(),
            memory_queue: Default::default(),
        }
    }

    /// What the plugin sees of its local server now.
    pub fn note_local_server(&self, facts: LocalServerFacts) {
        *self.seen.local_server.borrow_mut() = facts;
    }

    pub fn local_server(&self) -> LocalServerFacts {
        self.seen.local_server.borrow().clone()
    }

    pub fn set_user_id(&self, user_id: &str) {
        *self.seen.user_id.borrow_mut() = Some(user_id.to_string());
    }

    pub fn user_id(&self) -> Option<String> {
        self.seen.user_id.borrow().clone()
    }

    /// What the plugin sees of the host; the engine's diagnosis from it alone.
    pub fn note_host(&self, facts: HostFacts) -> Option<Inert> {
        self.seen.note_host(facts)
    }

    /// Why the engine is not in use, if it saw so (cleared by the next `assemble`).
    pub fn inert(&self) -> Option<Inert> {
        self.seen.inert.borrow().clone()
    }

    /// The host ran a turn without the engine: remember why, and say so once per process
    /// and cause (`inert::first_report`: every agent's engine and the plugin's load share it).
    pub(super) fn note_unassembled_turn(&self) {
        let d = crate::lifecycle::inert::diagnose_unassembled_turn(&self.seen.host_facts.borrow());
        if crate::lifecycle::inert::first_report(&d) {
            self.host.warn(&crate::lifecycle::inert::warning(&d));
        }
        *self.seen.inert.borrow_mut() = Some(d);
    }

    pub(super) fn warn_once(&self, key: &str, message: &str) {
        if self.seen.warned.borrow_mut().insert(key.to_string()) {
            self.host.warn(message);
        }
    }

    pub(super) fn outage_over(&self, key: &str) {
        self.seen.warned.borrow_mut().remove(key);
    }
}

/// What the engine knows of its surroundings (its `seen` part): who the user is, what the
/// host and the local server look like, and which outages it already reported.
#[derive(Default)]
pub(super) struct Surroundings {
    /// The OpenViking user id (from `GET /api/v1/system/status`), needed for user-scope URIs.
    user_id: RefCell<Option<String>>,
    /// What the plugin sees of the host (slot, version), and why the engine is not in use.
    host_facts: RefCell<HostFacts>,
    inert: RefCell<Option<Inert>>,
    /// What the plugin sees of its local server (local mode), for the reachability verdict.
    local_server: RefCell<LocalServerFacts>,
    /// Sessions whose outage was already reported (one warning per outage, not per turn).
    warned: RefCell<std::collections::HashSet<String>>,
}

impl Surroundings {
    fn note_host(&self, facts: HostFacts) -> Option<Inert> {
        let d = crate::lifecycle::inert::diagnose_host(&facts);
        *self.host_facts.borrow_mut() = facts;
        if d.is_some() {
            self.inert.borrow_mut().clone_from(&d);
        }
        d
    }

    /// The next `assemble` runs: a "not called" diagnosis no longer holds.
    pub(super) fn engine_called(&self) {
        if self.inert.borrow().as_ref().is_some_and(|d| d.code == "not_called") {
            *self.inert.borrow_mut() = None; // the host calls the engine again
        }
    }
}
