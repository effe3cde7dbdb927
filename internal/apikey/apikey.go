package apikey

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// NewSecret returns a new key secret and its preview (the hint shown in lists).
func NewSecret() (secret, preview string) {
	secret = "sk_" + store.RandomString(48)
	return secret, secret[:6] + "…" + secret[len(secret)-4:]
}

// NewKey is a key to create.
type NewKey struct {
	WorkspaceID, UserID      string
	ServiceAccount           bool
	Name                     string
	Permissions              []string // the API's names, or ["all"]
	CharacterLimit           *int64
	ThirdPartyDisableAllowed *bool
}

// Create stores a key and returns it with its secret (shown once). A caller authenticated by a
// key can only hand out permissions its own key holds.
func Create(ctx context.Context, db KeyCreator, c *access.Caller, nk NewKey, now time.Time) (*store.APIKey, string, error) {
	if err := grantable(c, nk.Permissions); err != nil {
		return nil, "", err
	}
	if err := unlimitedCaller(ctx, db, c); err != nil {
		return nil, "", err
	}
	secret, preview := NewSecret()
	k := &store.APIKey{ID: store.NewID(), WorkspaceID: nk.WorkspaceID, UserID: nk.UserID, Name: nk.Name, Preview: preview,
		KeyHash: store.HashToken(secret), CreatedAt: now.Unix(), Permissions: nk.Permissions, CharacterLimit: nk.CharacterLimit,
		ThirdPartyDisableAllowed: nk.ThirdPartyDisableAllowed, ServiceAccount: nk.ServiceAccount}
	if err := db.CreateAPIKey(ctx, *k, secret); err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// grantable refuses to let a key-authenticated caller give out permissions it lacks.
func grantable(c *access.Caller, perms []string) error {
	if c == nil {
		return nil
	}
	for _, p := range perms {
		if !c.Can(p) {
			return errs.Errorf(errs.Unauthenticated, "missing_permissions",
				"The API key doesn't have the permission %s, so it cannot give it to another key.", p)
		}
	}
	return nil
}

// errLimitedKey refuses key management to a key with a character limit: a key it made, or a
// limit it changed, would escape its own limit.
var errLimitedKey = errs.Errorf(errs.Forbidden, "api_key_limited",
	"This API key has a character limit, so it cannot create keys or change character limits. Use the web app or a key without a limit.")

// unlimitedCaller refuses a caller authenticated by a key that has a character limit.
func unlimitedCaller(ctx context.Context, db KeyCreator, c *access.Caller) error {
	if c == nil || c.APIKeyID == "" {
		return nil
	}
	k, err := db.APIKeyByID(ctx, c.WorkspaceID, c.APIKeyID)
	if err != nil {
		return err
	}
	if k.CharacterLimit != nil {
		return errLimitedKey
	}
	return nil
}

// Covers refuses a key-authenticated caller editing a key that holds a permission its own key
// lacks (re-enabling it, changing its limit): a key never reaches beyond its own permissions.
// Deleting needs only the key-management permission: revoking takes access away.
func Covers(c *access.Caller, k *store.APIKey) error {
	if c == nil || c.APIKeyID == "" || c.Permissions == nil {
		return nil
	}
	perms := k.Permissions
	if k.AllPermissions() {
		perms = []string{All}
	}
	for _, p := range perms {
		if !c.Can(p) {
			return errs.Errorf(errs.Forbidden, "missing_permissions",
				"The API key doesn't have the permission %s, which the key it would change holds.", p)
		}
	}
	return nil
}

// CallerPermissions is what a key grants a request: nil for every permission (keys with "all"),
// else its list (never nil, so an empty list grants nothing).
func CallerPermissions(k *store.APIKey) []string {
	if k.AllPermissions() {
		return nil
	}
	return append([]string{}, k.Permissions...)
}

// ErrKeyDisabled answers a request made with a disabled key.
func ErrKeyDisabled(reason string) error {
	msg := "This API key is disabled. A workspace admin, or its owner, can enable it again in the API keys settings."
	if reason == "self_disabled" {
		msg = "This API key was disabled by its holder (POST /v1/workspaces/api-keys/disable). Its owner can enable it again in the API keys settings."
	}
	return errs.Errorf(errs.Unauthenticated, "api_key_disabled", "%s", msg)
}

// DecodeNewKey reads a create-key body: name*, permissions (required when requirePermissions,
// else "all" when absent), character_limit, allowed_ips (only null) and
// third_party_disable_allowed. It fills the name and settings of nk.
func DecodeNewKey(r *http.Request, maxBody int64, requirePermissions bool) (NewKey, error) {
	b, err := decodeBody(r, maxBody, false)
	if err != nil {
		return NewKey{}, err
	}
	var v errs.Validator
	name := b.name(&v, true)
	perms := b.permissions(&v, requirePermissions, false)
	limit, _, _ := b.characterLimit(&v, false)
	third, _ := b.thirdParty(&v, false)
	b.allowedIPs(&v, false)
	if err := v.Err(); err != nil {
		return NewKey{}, err
	}
	if perms == nil {
		perms = []string{All}
	}
	return NewKey{Name: *name, Permissions: perms, CharacterLimit: limit, ThirdPartyDisableAllowed: third}, nil
}

// decodeUpdate reads a PATCH-style body into a store update.
func decodeUpdate(b body, v *errs.Validator) store.APIKeyUpdate {
	var u store.APIKeyUpdate
	u.Name = b.name(v, false)
	u.Permissions = b.permissions(v, false, true)
	limit, clearLimit, _ := b.characterLimit(v, true)
	u.CharacterLimit, u.ClearCharacterLimit = limit, clearLimit
	if on := b.isEnabled(v); on != nil {
		off := !*on
		u.Disabled = &off
	}
	u.ThirdPartyDisable, u.ClearThirdParty = b.thirdParty(v, true)
	b.allowedIPs(v, true)
	return u
}

// changes describes an update for the audit log (never a secret).
func changes(u store.APIKeyUpdate) audit.Details {
	d := audit.Details{}
	if u.Name != nil {
		d["name"] = *u.Name
	}
	if u.Permissions != nil {
		d["permissions"] = u.Permissions
	}
	if u.ClearCharacterLimit {
		d["character_limit"] = nil
	} else if u.CharacterLimit != nil {
		d["character_limit"] = *u.CharacterLimit
	}
	if u.Disabled != nil {
		d["is_enabled"] = !*u.Disabled
	}
	if u.ClearThirdParty {
		d["third_party_disable_allowed"] = nil
	} else if u.ThirdPartyDisable != nil {
		d["third_party_disable_allowed"] = *u.ThirdPartyDisable
	}
	return d
}

// Key is a key in the reference's WorkspaceApiKeyResponseModel shape (plus Timbre's key_preview
// and last_used_unix). permissions is null for a key with "all". Users' keys (Timbre's own
// routes) leave out service_account_user_id and hashed_xi_api_key.
type Key struct {
	Name                     string   `json:"name"`
	Hint                     string   `json:"hint"`
	KeyID                    string   `json:"key_id"`
	CreatedAtUnix            int64    `json:"created_at_unix"`
	IsDisabled               bool     `json:"is_disabled"`
	Permissions              []string `json:"permissions"`
	DisableReason            *string  `json:"disable_reason"`
	CharacterLimit           *int64   `json:"character_limit"`
	CharacterCount           int64    `json:"character_count"`
	AllowedIPs               []string `json:"allowed_ips"` // always null: IP allow-lists are not kept
	ThirdPartyDisableAllowed *bool    `json:"third_party_disable_allowed"`
	KeyPreview               string   `json:"key_preview"`
	LastUsedUnix             *int64   `json:"last_used_unix"`
	ServiceAccountUserID     string   `json:"service_account_user_id,omitempty"`
	HashedXIAPIKey           string   `json:"hashed_xi_api_key,omitempty"` // required by the reference's model
}

// KeyJSON renders k for the API.
func KeyJSON(k *store.APIKey) Key {
	out := Key{Name: k.Name, Hint: k.Preview, KeyID: k.ID, CreatedAtUnix: k.CreatedAt, IsDisabled: k.IsDisabled,
		CharacterLimit: k.CharacterLimit, CharacterCount: k.CharacterCount,
		ThirdPartyDisableAllowed: k.ThirdPartyDisableAllowed, KeyPreview: k.Preview, LastUsedUnix: k.LastUsed}
	if !k.AllPermissions() {
		out.Permissions = k.Permissions
	}
	if k.IsDisabled && k.DisableReason != "" {
		out.DisableReason = &k.DisableReason
	}
	if k.ServiceAccount {
		out.ServiceAccountUserID, out.HashedXIAPIKey = k.UserID, k.KeyHash
	}
	return out
}

// serviceAccountResponse is a service account with its keys, as GET /v1/service-accounts lists it.
type serviceAccountResponse struct {
	ServiceAccountUserID string `json:"service_account_user_id"`
	Name                 string `json:"name"`
	CreatedAtUnix        int64  `json:"created_at_unix"`
	APIKeys              []Key  `json:"api-keys"`
	DefaultSharingGroups []any  `json:"default_sharing_groups"` // always empty: not supported yet
	Role                 string `json:"role"`
}

type serviceAccountList struct {
	ServiceAccounts []serviceAccountResponse `json:"service-accounts"`
}

type serviceAccountCreated struct {
	ServiceAccountUserID string `json:"service-account-user-id"`
}

type keyList struct {
	APIKeys []Key `json:"api-keys"`
}

// keyCreated shows the new key's secret this once.
type keyCreated struct {
	XIAPIKey string `json:"xi-api-key"`
	KeyID    string `json:"key_id"`
}

var (
	errKeyNotFound = errs.Errorf(errs.NotFound, "api_key_not_found", "No API key with that id in this workspace.")
	errSANotFound  = errs.Errorf(errs.NotFound, "service_account_not_found", "No service account with that id in this workspace.")
)

// Handlers serves the service-account routes, key editing and the self-disable route.
type Handlers struct {
	DB      Store
	MaxBody int64
	Now     func() time.Time
}

func (h *Handlers) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	read, write := httpx.Perm("workspace_read"), httpx.Perm("service_account_write")
	// A group can delegate service accounts to editors; delegates stay within editor rights.
	sa := httpx.AdminOr("service_accounts_manage")
	rt.Authed("GET /v1/service-accounts", h.listServiceAccounts, read, sa)
	rt.Authed("POST /v1/service-accounts", h.createServiceAccount, write, sa)
	rt.Authed("DELETE /v1/service-accounts/{service_account_user_id}", h.deleteServiceAccount, write, sa)
	rt.Authed("GET /v1/service-accounts/{service_account_user_id}/api-keys", h.listServiceAccountKeys, read, sa)
	rt.Authed("POST /v1/service-accounts/{service_account_user_id}/api-keys", h.createServiceAccountKey, write, sa)
	rt.Authed("PATCH /v1/service-accounts/{service_account_user_id}/api-keys/{api_key_id}", h.editServiceAccountKey, write, sa)
	rt.Authed("DELETE /v1/service-accounts/{service_account_user_id}/api-keys/{api_key_id}", h.deleteServiceAccountKey, write, sa)
	rt.Authed("POST /v1/workspaces/api-keys/disable", h.selfDisable)
	rt.Authed("POST /v1/user/edit-api-key", h.editUserKey, httpx.Perm("create_user_api_key"), httpx.Feature("create_user_api_key"))
}

func (h *Handlers) record(r *http.Request, class, activity, target string, details audit.Details) {
	audit.Record(r.Context(), h.DB, r, "", "", audit.Event{Class: class, Activity: activity, Target: target, Details: details})
}

// serviceAccount loads the path's service account in the caller's workspace.
func (h *Handlers) serviceAccount(r *http.Request) (*store.ServiceAccount, error) {
	c := access.CallerFrom(r.Context())
	sa, err := h.DB.ServiceAccountByID(r.Context(), c.WorkspaceID, r.PathValue("service_account_user_id"))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errSANotFound
	}
	if err == nil {
		err = checkDelegate(c, sa.Role)
	}
	return sa, err
}

// checkDelegate keeps an editor to whom a group delegates service accounts within their own
// rights: no admin service accounts, and none at all while their groups limit their features
// (a service account's keys are not limited by groups).
func checkDelegate(c *access.Caller, saRole string) error {
	switch {
	case c.Role == access.RoleAdmin:
		return nil
	case saRole == access.RoleAdmin:
		return errs.Errorf(errs.Forbidden, "beyond_delegated_access", "Only a workspace admin can manage admin service accounts.")
	case c.Features != nil:
		return errs.Errorf(errs.Forbidden, "beyond_delegated_access", "Your groups limit the features you use, so only a workspace admin can manage service accounts for you.")
	}
	return nil
}

func (h *Handlers) listServiceAccounts(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	sas, err := h.DB.ListServiceAccounts(r.Context(), c.WorkspaceID)
	if err != nil {
		return err
	}
	keys, err := h.DB.ListServiceAccountAPIKeys(r.Context(), c.WorkspaceID, "")
	if err != nil {
		return err
	}
	byOwner := map[string][]Key{}
	for i := range keys {
		byOwner[keys[i].UserID] = append(byOwner[keys[i].UserID], KeyJSON(&keys[i]))
	}
	out := make([]serviceAccountResponse, 0, len(sas))
	for _, sa := range sas {
		ks := byOwner[sa.UserID]
		if ks == nil {
			ks = []Key{}
		}
		out = append(out, serviceAccountResponse{ServiceAccountUserID: sa.UserID, Name: sa.Name, CreatedAtUnix: sa.CreatedAt,
			APIKeys: ks, DefaultSharingGroups: []any{}, Role: sa.Role})
	}
	httpx.WriteJSON(w, http.StatusOK, serviceAccountList{ServiceAccounts: out})
	return nil
}

func (h *Handlers) createServiceAccount(w http.ResponseWriter, r *http.Request) error {
	b, err := decodeBody(r, h.MaxBody, false)
	if err != nil {
		return err
	}
	var v errs.Validator
	name := b.name(&v, true)
	if raw, ok := b["default_sharing_groups"]; ok && !isNull(raw) && strings.TrimSpace(string(raw)) != "[]" {
		v.Add("body", "default_sharing_groups", "value_error", "Default sharing groups are not supported by this server yet; omit default_sharing_groups.")
	}
	role := access.RoleEditor
	if raw, ok := b["role"]; ok && !isNull(raw) {
		s, _ := str(raw)
		if s != access.RoleEditor && s != access.RoleAdmin {
			v.Add("body", "role", "enum", "Input should be 'editor' or 'admin'.")
		}
		role = s
	}
	if err := v.Err(); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	if err := checkDelegate(c, role); err != nil {
		return err
	}
	sa := store.ServiceAccount{UserID: store.NewID(), WorkspaceID: c.WorkspaceID, Name: *name, Role: role, CreatedAt: h.now().Unix()}
	err = h.DB.CreateServiceAccount(r.Context(), sa, MaxServiceAccounts)
	if errors.Is(err, store.ErrLimitReached) {
		return errs.Errorf(errs.Invalid, "service_account_limit_reached", "A workspace can have at most %d service accounts.", MaxServiceAccounts)
	}
	if err != nil {
		return err
	}
	h.record(r, "service_account", "create", sa.UserID, audit.Details{"name": sa.Name, "role": sa.Role})
	httpx.WriteJSON(w, http.StatusOK, serviceAccountCreated{ServiceAccountUserID: sa.UserID})
	return nil
}

func (h *Handlers) deleteServiceAccount(w http.ResponseWriter, r *http.Request) error {
	sa, err := h.serviceAccount(r)
	if err != nil {
		return err
	}
	if err := h.DB.DeleteServiceAccount(r.Context(), sa.WorkspaceID, sa.UserID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errSANotFound
		}
		return err
	}
	h.record(r, "service_account", "delete", sa.UserID, audit.Details{"name": sa.Name})
	httpx.OK(w)
	return nil
}

func (h *Handlers) listServiceAccountKeys(w http.ResponseWriter, r *http.Request) error {
	sa, err := h.serviceAccount(r)
	if err != nil {
		return err
	}
	keys, err := h.DB.ListServiceAccountAPIKeys(r.Context(), sa.WorkspaceID, sa.UserID)
	if err != nil {
		return err
	}
	out := make([]Key, 0, len(keys))
	for i := range keys {
		out = append(out, KeyJSON(&keys[i]))
	}
	httpx.WriteJSON(w, http.StatusOK, keyList{APIKeys: out})
	return nil
}

func (h *Handlers) createServiceAccountKey(w http.ResponseWriter, r *http.Request) error {
	sa, err := h.serviceAccount(r)
	if err != nil {
		return err
	}
	nk, err := DecodeNewKey(r, h.MaxBody, true)
	if err != nil {
		return err
	}
	nk.WorkspaceID, nk.UserID, nk.ServiceAccount = sa.WorkspaceID, sa.UserID, true
	k, secret, err := Create(r.Context(), h.DB, access.CallerFrom(r.Context()), nk, h.now())
	if err != nil {
		return err
	}
	h.record(r, "api_key", "create", k.ID, audit.Details{"name": k.Name, "service_account_user_id": sa.UserID,
		"permissions": k.Permissions, "character_limit": k.CharacterLimit})
	httpx.WriteJSON(w, http.StatusOK, keyCreated{XIAPIKey: secret, KeyID: k.ID})
	return nil
}

// update applies a PATCH-style body to key k.
func (h *Handlers) update(r *http.Request, b body, k *store.APIKey) error {
	var v errs.Validator
	u := decodeUpdate(b, &v)
	if err := v.Err(); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	if err := grantable(c, u.Permissions); err != nil {
		return err
	}
	if err := Covers(c, k); err != nil {
		return err
	}
	if u.CharacterLimit != nil || u.ClearCharacterLimit {
		if err := unlimitedCaller(r.Context(), h.DB, c); err != nil {
			return err
		}
	}
	if err := h.DB.UpdateAPIKey(r.Context(), k.WorkspaceID, k.UserID, k.ID, u); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errKeyNotFound
		}
		return err
	}
	d := changes(u)
	if k.ServiceAccount {
		d["service_account_user_id"] = k.UserID
	}
	h.record(r, "api_key", "update", k.ID, d)
	return nil
}

// serviceAccountKey loads the path's key of the path's service account.
func (h *Handlers) serviceAccountKey(r *http.Request) (*store.APIKey, error) {
	sa, err := h.serviceAccount(r)
	if err != nil {
		return nil, err
	}
	k, err := h.DB.APIKeyByID(r.Context(), sa.WorkspaceID, r.PathValue("api_key_id"))
	if errors.Is(err, store.ErrNotFound) || (err == nil && (!k.ServiceAccount || k.UserID != sa.UserID)) {
		return nil, errKeyNotFound
	}
	return k, err
}

func (h *Handlers) editServiceAccountKey(w http.ResponseWriter, r *http.Request) error {
	k, err := h.serviceAccountKey(r)
	if err != nil {
		return err
	}
	b, err := decodeBody(r, h.MaxBody, true)
	if err != nil {
		return err
	}
	if err := h.update(r, b, k); err != nil {
		return err
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) deleteServiceAccountKey(w http.ResponseWriter, r *http.Request) error {
	k, err := h.serviceAccountKey(r)
	if err != nil {
		return err
	}
	if err := h.DB.DeleteServiceAccountAPIKey(r.Context(), k.WorkspaceID, k.UserID, k.ID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errKeyNotFound
		}
		return err
	}
	h.record(r, "api_key", "delete", k.ID, audit.Details{"name": k.Name, "service_account_user_id": k.UserID})
	httpx.OK(w)
	return nil
}

// editUserKey is POST /v1/user/edit-api-key: {key_id, name?, permissions?, character_limit?,
// is_enabled?, third_party_disable_allowed?} with the PATCH route's sentinels. Users edit their
// own keys; admins any user key of the workspace.
func (h *Handlers) editUserKey(w http.ResponseWriter, r *http.Request) error {
	b, err := decodeBody(r, h.MaxBody, false)
	if err != nil {
		return err
	}
	id, _ := str(b["key_id"])
	if strings.TrimSpace(id) == "" {
		return errs.Field("body", "key_id", "missing", "Field required: the id of the key to edit.")
	}
	c := access.CallerFrom(r.Context())
	k, err := h.DB.APIKeyByID(r.Context(), c.WorkspaceID, strings.TrimSpace(id))
	if errors.Is(err, store.ErrNotFound) || (err == nil && k.ServiceAccount) {
		return errKeyNotFound
	}
	if err != nil {
		return err
	}
	if k.UserID != c.UserID && c.Role != access.RoleAdmin {
		return httpx.ErrForbiddenRole
	}
	if err := h.update(r, b, k); err != nil {
		return err
	}
	k, err = h.DB.APIKeyByID(r.Context(), c.WorkspaceID, k.ID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, KeyJSON(k))
	return nil
}

// selfDisable is POST /v1/workspaces/api-keys/disable?api_key_name=self: the key that
// authenticates the request disables itself (a leaked key's finder can switch it off), unless
// its owner forbade that (third_party_disable_allowed false).
func (h *Handlers) selfDisable(w http.ResponseWriter, r *http.Request) error {
	if name := r.URL.Query().Get("api_key_name"); name != "self" {
		if name == "" {
			return errs.Field("query", "api_key_name", "missing", "Field required: set api_key_name=self to disable the key of this request.")
		}
		return errs.Field("query", "api_key_name", "value_error", "Only api_key_name=self is supported: it disables the key of this request.")
	}
	c := access.CallerFrom(r.Context())
	if c.APIKeyID == "" {
		return errs.Errorf(errs.Invalid, "api_key_required", "Send the API key to disable in the xi-api-key header; a web session has no key to disable.")
	}
	k, err := h.DB.APIKeyByID(r.Context(), c.WorkspaceID, c.APIKeyID)
	if errors.Is(err, store.ErrNotFound) {
		return errKeyNotFound
	}
	if err != nil {
		return err
	}
	if k.ThirdPartyDisableAllowed != nil && !*k.ThirdPartyDisableAllowed {
		return errs.Errorf(errs.Forbidden, "self_disable_not_allowed", "The owner of this API key does not allow disabling it this way.")
	}
	off := true
	if err := h.DB.UpdateAPIKey(r.Context(), k.WorkspaceID, k.UserID, k.ID, store.APIKeyUpdate{Disabled: &off, DisableReason: "self_disabled"}); err != nil {
		return err
	}
	h.record(r, "api_key", "disable", k.ID, audit.Details{"reason": "self_disabled"})
	httpx.OK(w)
	return nil
}
