//! The engine of one agent: what it holds (config, host, the records and per-process state
//! its parts use) and how it is made. Its behaviour lives beside it, one file per concern.

use super::{LastAssembled, SessionRecord};
use crate::config::Config;
use crate::host::Host;
use std::cell::RefCell;
use std::collections::HashMap;

pub struct Engine<H: Host> {
    pub config: Config,
    pub host: H,
    /// The OpenViking user id (from `GET /api/v1/system/status`), needed for user-scope URIs.
    pub(super) user_id: RefCell<Option<String>>,
    /// Records loaded in this process, by OpenViking session id: at most
    /// `record::RECORDS_CACHED` of them; a saved, idle one is dropped (and loaded again when
    /// it is used) so a gateway that sees thousands of sessions keeps a bounded cache.
    pub(super) records: RefCell<HashMap<String, SessionRecord>>,
    /// When each cached record was last used (a counter, not a time).
    pub(super) record_used: RefCell<HashMap<String, u64>>,
    pub(super) record_tick: std::cell::Cell<u64>,
    /// Operations running now (`record::Operation`).
    pub(super) operations: std::cell::Cell<usize>,
    /// Records changed in memory since their last save (`update_cached`): saved with the next
    /// `update`, or by `save_unsaved` before a turn or a replay ends.
    pub(super) unsaved: RefCell<std::collections::HashSet<String>>,
    /// Sessions whose outage was already reported (one warning per outage, not per turn).
    pub(super) warned: RefCell<std::collections::HashSet<String>>,
    /// Sessions whose outbox is being replayed: one replay at a time per session (two at once
    /// would both send the head entry).
    pub(super) flushing: RefCell<std::collections::HashSet<String>>,
    /// Sessions whose commit task is being followed, and by how many callers.
    pub(super) following: RefCell<HashMap<String, usize>>,
    /// Commit tasks whose checkpoint one follower is recording now (the others wait for it).
    pub(super) recording: RefCell<std::collections::HashSet<String>>,
    /// Per session, what this process knows of the live messages on OpenViking: their
    /// count and turn ids as last read, plus its own sends since (the replay asks OpenViking
    /// again only when the server's count differs).
    pub(super) live_known: RefCell<HashMap<String, LiveKnown>>,
    /// Calls waiting for a session's running replay to end (`drain`).
    pub(super) replay_waiters: RefCell<HashMap<String, Vec<std::task::Waker>>>,
    /// Per session, where the turn in progress opens, from its first `afterTurn` checkpoint
    /// (see `after_turn`): the end-of-turn call is written whole from there.
    pub(super) turn_openings: RefCell<HashMap<String, usize>>,
    /// Advancement and content keys reserved whose outbox append has not finished: a retry
    /// of one of them is refused (retryable), never answered `duplicate` before it is durable.
    pub(super) in_flight: RefCell<std::collections::HashSet<String>>,
    /// The last successful search, reused within `SEARCH_REUSE_MS` (see `search`).
    pub(super) last_search: RefCell<Option<super::search::LastSearch>>,
    /// The server refused a find over a list of folders: this process sends two.
    pub(super) combined_find_refused: std::cell::Cell<bool>,
    /// The stable profile once read in this process (`Some(None)`: there is none).
    pub(super) profile: RefCell<Option<Option<(String, String)>>>,
    /// Per session, what `assemble` last composed (for the turn's write and `trace`).
    pub(super) last_assembled: RefCell<HashMap<String, LastAssembled>>,
    /// What the plugin sees of the host (slot, version), and why the engine is not in use.
    pub(super) host_facts: RefCell<crate::lifecycle::inert::HostFacts>,
    pub(super) inert: RefCell<Option<crate::lifecycle::inert::Inert>>,
    /// What the plugin sees of its local server (local mode), for the reachability verdict.
    pub(super) local_server: RefCell<crate::openviking::probe::LocalServerFacts>,
    /// References of the tool outputs kept in the state dir (`kept_outputs`), once listed.
    pub(super) kept_outputs: RefCell<Option<std::collections::HashSet<String>>>,
    pub(super) last_experiences: RefCell<Option<super::experience_lineage::LastExperiences>>,
    pub(super) trajectory_sessions: RefCell<HashMap<String, String>>,
    pub(super) last_skills: RefCell<super::skills_and_map::LastSkills>,
    /// The memory queue (`memory_queue`) was read empty, and this process queued nothing since.
    pub(super) memory_queue_empty: std::cell::Cell<bool>,
    /// This process is applying the memory queue.
    pub(super) memory_replaying: std::cell::Cell<bool>,
}

/// See `Engine::live_known`.
#[derive(Debug, Clone, Default)]
pub(super) struct LiveKnown {
    pub(super) count: u64,
    pub(super) turn_ids: std::collections::HashSet<String>,
}

impl<H: Host> Engine<H> {
    pub fn new(config: Config, host: H) -> Self {
        Engine {
            config,
            host,
            user_id: RefCell::new(None),
            records: RefCell::new(HashMap::new()),
            record_used: RefCell::new(HashMap::new()),
            record_tick: std::cell::Cell::new(0),
            operations: std::cell::Cell::new(0),
            unsaved: RefCell::new(Default::default()),
            warned: RefCell::new(Default::default()),
            flushing: RefCell::new(Default::default()),
            replay_waiters: RefCell::new(HashMap::new()),
            live_known: RefCell::new(HashMap::new()),
            following: RefCell::new(HashMap::new()),
            recording: RefCell::new(Default::default()),
            turn_openings: RefCell::new(HashMap::new()),
            in_flight: RefCell::new(Default::default()),
            last_search: RefCell::new(None),
            combined_find_refused: std::cell::Cell::new(false),
            profile: RefCell::new(None),
            last_assembled: RefCell::new(HashMap::new()),
            host_facts: RefCell::new(Default::default()),
            inert: RefCell::new(None),
            local_server: RefCell::new(Default::default()),
            kept_outputs: RefCell::new(None),
            last_experiences: RefCell::new(None),
            trajectory_sessions: RefCell::new(HashMap::new()),
            last_skills: RefCell::new(None),
            memory_queue_empty: std::cell::Cell::new(false),
            memory_replaying: std::cell::Cell::new(false),
        }
    }

    /// What the plugin sees of its local server now.
    pub fn note_local_server(&self, facts: crate::openviking::probe::LocalServerFacts) {
        *self.local_server.borrow_mut() = facts;
    }

    pub fn local_server(&self) -> crate::openviking::probe::LocalServerFacts {
        self.local_server.borrow().clone()
    }

    pub fn set_user_id(&self, user_id: &str) {
        *self.user_id.borrow_mut() = Some(user_id.to_string());
    }

    pub fn user_id(&self) -> Option<String> {
        self.user_id.borrow().clone()
    }

    /// What the plugin sees of the host; the engine's diagnosis from it alone.
    pub fn note_host(&self, facts: crate::lifecycle::inert::HostFacts) -> Option<crate::lifecycle::inert::Inert> {
        let d = crate::lifecycle::inert::diagnose_host(&facts);
        *self.host_facts.borrow_mut() = facts;
        if d.is_some() {
            self.inert.borrow_mut().clone_from(&d);
        }
        d
    }

    /// Why the engine is not in use, if it saw so (cleared by the next `assemble`).
    pub fn inert(&self) -> Option<crate::lifecycle::inert::Inert> {
        self.inert.borrow().clone()
    }

    /// The host ran a turn without the engine: remember why, and say so once per process
    /// and cause (`inert::first_report`: every agent's engine and the plugin's load share it).
    pub(super) fn note_unassembled_turn(&self) {
        let d = crate::lifecycle::inert::diagnose_unassembled_turn(&self.host_facts.borrow());
        if crate::lifecycle::inert::first_report(&d) {
            self.host.warn(&crate::lifecycle::inert::warning(&d));
        }
        *self.inert.borrow_mut() = Some(d);
    }

    pub(super) fn warn_once(&self, key: &str, message: &str) {
        if self.warned.borrow_mut().insert(key.to_string()) {
            self.host.warn(message);
        }
    }

    pub(super) fn outage_over(&self, key: &str) {
        self.warned.borrow_mut().remove(key);
    }
}
