package domain

import (
	"bytes"
	"encoding/json"
)

// The JSON forms of a config. A config decoded from bytes and unchanged is
// written back as those very bytes; once Parley changes or leaves out a
// member, the object is written with its keys in alphabetical order, the
// members it did not change as they came. That is byte for byte what
// Parley wrote before the config had a type (it re-encoded a map then),
// so API clients and stored configs see no difference.

// JSON returns the config as it is stored.
func (c AgentConfig) JSON() json.RawMessage {
	out, same := c.members()
	if same && c.src != nil {
		return c.src
	}
	return encodeMembers(out)
}

// MarshalJSON encodes the config as JSON does.
func (c AgentConfig) MarshalJSON() ([]byte, error) { return c.JSON(), nil }

// Public returns the config as visitors may see it (init's "config"): all
// of it but the private members (instructions, llm, limits).
func (c AgentConfig) Public() json.RawMessage {
	out, same := c.members()
	for _, k := range privateConfigKeys {
		if _, ok := out[k]; ok {
			delete(out, k)
			same = false
		}
	}
	if same && c.src != nil {
		return c.src
	}
	return encodeMembers(out)
}

// Owner returns the config as the management API shows it to the agent's
// owner: the LLM and embeddings API keys, secrets, are replaced by "api_key_set": true.
func (c AgentConfig) Owner() json.RawMessage {
	out, same := c.members()
	if c.LLM.APIKey != nil {
		out[ConfigLLM] = c.LLM.encode(true)
		same = false
	}
	if c.Embed.APIKey != nil {
		out[ConfigEmbed] = c.Embed.encode(true)
		same = false
	}
	if same && c.src != nil {
		return c.src
	}
	return encodeMembers(out)
}

// members returns the config's members, and whether they are the ones it
// was decoded from, unchanged. A member whose field still encodes as its
// original bytes decode to keeps those bytes (with an owner's key order
// inside it, or a value of the wrong type an older config held).
func (c AgentConfig) members() (out map[string]json.RawMessage, same bool) {
	out = make(map[string]json.RawMessage, len(knownFields)+len(c.Extra))
	same = true
	for _, f := range knownFields {
		cur := f.encode(&c)
		if old, had := c.raw[f.key]; had && bytes.Equal(cur, f.canon(old)) {
			out[f.key] = old
			continue
		} else if had || cur != nil {
			same = false
		}
		if cur != nil {
			out[f.key] = cur
		}
	}
	for k, v := range c.Extra {
		if isKnownField(k) {
			continue // the field is the member
		}
		out[k] = v
		if old, had := c.raw[k]; !had || !bytes.Equal(old, v) {
			same = false
		}
	}
	if len(out) != len(c.raw) {
		same = false // an unknown member was removed
	}
	return out, same
}

// encodeMembers writes an object as encoding/json writes a map: keys in
// order, values compacted. An Extra holding invalid JSON is left out
// rather than losing the whole config.
func encodeMembers(m map[string]json.RawMessage) json.RawMessage {
	if b, err := json.Marshal(m); err == nil {
		return b
	}
	for k, v := range m {
		if !json.Valid(v) {
			delete(m, k)
		}
	}
	if b, err := json.Marshal(m); err == nil {
		return b
	}
	return json.RawMessage("{}")
}

// Member returns the bytes of a member as the config was decoded with
// them, nil when it had none: whether the owner sent an "llm" object, say.
func (c AgentConfig) Member(key string) json.RawMessage { return c.raw[key] }

// canon is how a member's field encodes right after decoding raw: the
// field is unchanged while it still encodes so. (Worked out here, not when
// the config is loaded: a chat reads the config but never encodes it.)
func (f configField) canon(raw json.RawMessage) json.RawMessage {
	var c AgentConfig
	_ = f.decode(&c, raw) // lenient, as when it was loaded
	return f.encode(&c)
}

// Detached returns the config without the bytes it was decoded from: it
// is then encoded from its fields alone. A form that edits every member
// Parley reads starts from it, so that a member of the wrong type from an
// older config goes when its field is saved empty (kept otherwise, it
// would outlive the save); Extra is kept.
func (c AgentConfig) Detached() AgentConfig {
	c.src, c.raw = nil, nil
	return c
}
