//! A prompt's declared parameters, as rendering reads them (a leaf: the renderer's global
//! scope reads their defaults, and the prompt module checks what is required).

use serde_json::Value;

/// A declared prompt parameter, as far as rendering cares.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptParameter {
    pub(super) name: String,
    pub(super) required: bool,
    pub(super) default: Option<Value>,
    type_name: Option<String>,
}

impl PromptParameter {
    /// A required parameter without a default.
    pub fn new(name: impl Into<String>) -> PromptParameter {
        PromptParameter {
            name: name.into(),
            required: true,
            default: None,
            type_name: None,
        }
    }

    /// Sets `required` (default `true`; upstream treats only an explicit `false` as optional).
    #[must_use]
    pub fn with_required(mut self, required: bool) -> PromptParameter {
        self.required = required;
        self
    }

    /// Sets the `default` value (none by default). A parameter with a default is never
    /// missing.
    #[must_use]
    pub fn with_default(mut self, default: Value) -> PromptParameter {
        self.default = Some(default);
        self
    }

    /// Sets the declared `type` (`string`, `number`, `boolean` or `date`; none by default).
    /// Rendering ignores it; run start checks supplied values against it.
    #[must_use]
    pub fn with_type(mut self, type_name: impl Into<String>) -> PromptParameter {
        self.type_name = Some(type_name.into());
        self
    }

    /// The declared `type`, if any.
    pub fn type_name(&self) -> Option<&str> {
        self.type_name.as_deref()
    }

    /// The parameter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameter's default value, if it has one.
    pub fn default_value(&self) -> Option<&Value> {
        self.default.as_ref()
    }
}
