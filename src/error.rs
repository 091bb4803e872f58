//! The engine's one error type. Every error has a stable machine-readable [`ErrorCode`] and,
//! where a piece of input is to blame, the path of the offending field (`search.user[3].uri`).
//! The wasm layer turns it into a JS `Error` with `code` and `field` properties.

use std::fmt;

/// Stable error codes. They cross into JS as strings and are part of the public API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// The plugin configuration has an unknown key, a wrong type or an unusable value.
    InvalidConfig,
    /// An argument handed to the engine has the wrong shape.
    InvalidInput,
    /// A host callback (OpenViking I/O done by JS) failed.
    HostFailed,
    /// A host callback did not answer in time.
    HostTimeout,
    /// Something the engine relies on is missing (e.g. called before initialisation).
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidConfig => "INVALID_CONFIG",
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::HostFailed => "HOST_FAILED",
            ErrorCode::HostTimeout => "HOST_TIMEOUT",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct EngineError {
    pub code: ErrorCode,
    /// Path of the offending field, if the error is about one.
    pub field: Option<String>,
    pub message: String,
}

impl EngineError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        EngineError { code, field: None, message: message.into() }
    }

    pub fn at(code: ErrorCode, field: impl Into<String>, message: impl Into<String>) -> Self {
        let field = field.into();
        let message = format!("{field}: {}", message.into());
        EngineError { code, field: Some(field), message }
    }

    pub fn config(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::at(ErrorCode::InvalidConfig, field, message)
    }

    pub fn input(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::at(ErrorCode::InvalidInput, field, message)
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for EngineError {}

pub type Result<T> = std::result::Result<T, EngineError>;
