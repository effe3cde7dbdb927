package sso

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/auth"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// FlowCookie binds a sign-in in flight to the browser that started it. The IdP posts SAML
// responses cross-site, so it is SameSite=None (and Secure, HttpOnly, scoped to /api/sso/).
const FlowCookie = "xi_website_sso_state"

// Handlers serves SSO configuration (admins), the provider lookup and the sign-in flow.
type Handlers struct {
	Svc     *Service
	MaxBody int64
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	rt.Public("GET /v1/workspace/find-sso-provider", h.find)
	rt.Authed("GET /v1/workspace/identity-providers", h.list, httpx.Perm("workspace_read"), httpx.AdminOnly)
	rt.Authed("POST /api/workspace/sso/providers", h.create, httpx.Perm("workspace_write"), httpx.AdminOnly)
	rt.Authed("GET /api/workspace/sso/providers/{provider_id}", h.get, httpx.Perm("workspace_read"), httpx.AdminOnly)
	rt.Authed("PATCH /api/workspace/sso/providers/{provider_id}", h.update, httpx.Perm("workspace_write"), httpx.AdminOnly)
	rt.Authed("DELETE /api/workspace/sso/providers/{provider_id}", h.delete, httpx.Perm("workspace_write"), httpx.AdminOnly)
	rt.Authed("GET /api/workspace/sso/settings", h.settings, httpx.Perm("workspace_read"), httpx.AdminOnly)
	rt.Authed("PATCH /api/workspace/sso/settings", h.updateSettings, httpx.Perm("workspace_write"), httpx.AdminOnly)
	rt.Authed("GET /api/workspace/sso/domains", h.listDomains, httpx.Perm("workspace_read"), httpx.AdminOnly)
	rt.Authed("POST /api/workspace/sso/domains/{domain}/verify", h.verifyDomain, httpx.Perm("workspace_write"), httpx.AdminOnly)
	rt.Public("GET /api/sso/start", h.start)
	rt.Public("GET /api/sso/oidc/callback", h.oidcCallback)
	rt.Public("POST /api/sso/saml/acs", h.samlACS, httpx.CrossSite)
	rt.Public("GET /api/sso/saml/metadata", h.metadata)
}

func (h *Handlers) find(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p, err := h.Svc.FindProvider(r.Context(), q.Get("email"), strings.TrimSpace(q.Get("invite_code")))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, foundProviderResponse{ProviderID: p.ID, ProviderType: p.Type, WorkspaceID: p.WorkspaceID, Name: p.Name,
		SSOStartURL: "/api/sso/start?email=" + url.QueryEscape(strings.ToLower(strings.TrimSpace(q.Get("email"))))})
	return nil
}

func (h *Handlers) list(w http.ResponseWriter, r *http.Request) error {
	ps, err := h.Svc.DB.ListSSOProviders(r.Context(), access.CallerFrom(r.Context()).WorkspaceID)
	if err != nil {
		return err
	}
	out := make([]providerResponse, 0, len(ps))
	for i := range ps {
		out = append(out, providerJSON(&ps[i]))
	}
	httpx.WriteJSON(w, http.StatusOK, providersResponse{IdentityProviders: out})
	return nil
}

func (h *Handlers) providerID(r *http.Request) string { return r.PathValue("provider_id") }

func (h *Handlers) get(w http.ResponseWriter, r *http.Request) error {
	p, err := h.Svc.DB.SSOProvider(r.Context(), access.CallerFrom(r.Context()).WorkspaceID, h.providerID(r))
	if errors.Is(err, store.ErrNotFound) {
		return errNoSuchProvider
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, providerJSON(p))
	return nil
}

// changes lists which settings a request touched, for the audit log (never the values of secrets).
func changes(in *ProviderInput) []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(in.Name != nil, "name")
	add(in.Enabled != nil, "enabled")
	add(in.Domains != nil, "domains")
	add(in.Issuer != nil, "issuer")
	add(in.ClientID != nil, "client_id")
	add(in.ClientSecret != nil, "client_secret")
	add(in.Scopes != nil, "scopes")
	add(in.EntityID != nil, "identity_provider_entity_id")
	add(in.SSOURL != nil, "sso_url")
	add(in.Certificate != nil, "certificate")
	add(in.MetadataXML != nil, "metadata_xml")
	return out
}

func (h *Handlers) create(w http.ResponseWriter, r *http.Request) error {
	var in ProviderInput
	if err := httpx.DecodeJSON(r, h.MaxBody, &in); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	p, err := h.Svc.CreateProvider(r.Context(), c.WorkspaceID, c.UserID, &in)
	if err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "sso", Activity: "create", Target: p.ID,
		Details: audit.Details{"type": p.Type, "name": p.Name, "domains": p.Domains}})
	httpx.WriteJSON(w, http.StatusCreated, providerJSON(p))
	return nil
}

func (h *Handlers) update(w http.ResponseWriter, r *http.Request) error {
	var in ProviderInput
	if err := httpx.DecodeJSON(r, h.MaxBody, &in); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	p, err := h.Svc.UpdateProvider(r.Context(), c.WorkspaceID, h.providerID(r), &in)
	if err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "sso", Activity: "update", Target: p.ID,
		Details: audit.Details{"changed": changes(&in), "enabled": p.Enabled, "domains": p.Domains}})
	httpx.WriteJSON(w, http.StatusOK, providerJSON(p))
	return nil
}

func (h *Handlers) delete(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	id := h.providerID(r)
	if err := h.Svc.DeleteProvider(r.Context(), c.WorkspaceID, id); err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "sso", Activity: "delete", Target: id})
	httpx.OK(w)
	return nil
}

func (h *Handlers) settings(w http.ResponseWriter, r *http.Request) error {
	ap, req, err := h.Svc.Settings(r.Context(), access.CallerFrom(r.Context()).WorkspaceID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, settingsJSON(h.Svc.PublicURL, ap, req))
	return nil
}

func (h *Handlers) updateSettings(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Enabled     *bool `json:"user_auto_provisioning_enabled"`
		SSORequired *bool `json:"sso_required"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &in); err != nil {
		return err
	}
	if in.Enabled == nil && in.SSORequired == nil {
		return errs.Field("body", "user_auto_provisioning_enabled", "missing", "Field required: true or false (or send sso_required).")
	}
	c := access.CallerFrom(r.Context())
	changed, err := h.Svc.UpdateSettings(r.Context(), c.WorkspaceID, c.UserID, in.Enabled, in.SSORequired)
	// Audit what changed, also when a later change failed.
	for _, ch := range changed.Changes {
		details := audit.Details{ch.Setting: ch.To}
		if ch.Setting == "sso_required" && ch.To {
			details["ended_password_sessions"] = changed.EndedSessions
		}
		audit.Record(r.Context(), h.Svc.DB, r, "", changed.ByEmail, audit.Event{Class: "sso", Activity: "update", Target: c.WorkspaceID,
			Details: details})
	}
	if err != nil {
		return err
	}
	return h.settings(w, r)
}

// providerNames maps the workspace's provider ids to their names.
func (h *Handlers) providerNames(r *http.Request, workspaceID string) (map[string]string, error) {
	ps, err := h.Svc.DB.ListSSOProviders(r.Context(), workspaceID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ps))
	for _, p := range ps {
		out[p.ID] = p.Name
	}
	return out, nil
}

func (h *Handlers) listDomains(w http.ResponseWriter, r *http.Request) error {
	ws := access.CallerFrom(r.Context()).WorkspaceID
	ds, err := h.Svc.DB.ListSSODomains(r.Context(), ws)
	if err != nil {
		return err
	}
	names, err := h.providerNames(r, ws)
	if err != nil {
		return err
	}
	out := make([]domainResponse, 0, len(ds))
	for i := range ds {
		out = append(out, domainJSON(&ds[i], names[ds[i].ProviderID]))
	}
	httpx.WriteJSON(w, http.StatusOK, domainsResponse{Domains: out})
	return nil
}

func (h *Handlers) verifyDomain(w http.ResponseWriter, r *http.Request) error {
	domain, err := ParseDomain("path", "domain", r.PathValue("domain"))
	if err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	d, fresh, err := h.Svc.VerifyDomain(r.Context(), c.WorkspaceID, domain, c.UserID)
	var he *errs.Error
	if errors.As(err, &he) && he.Kind != errs.NotFound {
		audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "sso", Activity: "domain_verification_failed", Target: domain,
			Details: audit.Details{"reason": he.Code}})
	}
	if err != nil {
		return err
	}
	if fresh {
		audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "sso", Activity: "domain_verified", Target: domain,
			Details: audit.Details{"provider_id": d.ProviderID}})
	}
	names, err := h.providerNames(r, c.WorkspaceID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, domainJSON(d, names[d.ProviderID]))
	return nil
}

func (h *Handlers) start(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	st, _, err := h.Svc.Start(r.Context(), q.Get("email"), q.Get("redirect"))
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: FlowCookie, Value: st.State, Path: "/api/sso/", MaxAge: int(FlowTTL / time.Second),
		HttpOnly: true, Secure: true, SameSite: http.SameSiteNoneMode})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, st.URL, http.StatusFound)
	return nil
}

func flowCookie(r *http.Request) string {
	if c, err := r.Cookie(FlowCookie); err == nil {
		return c.Value
	}
	return ""
}

func (h *Handlers) oidcCallback(w http.ResponseWriter, r *http.Request) error {
	res, err := h.Svc.OIDCCallback(r, flowCookie(r))
	h.finish(w, r, res, err, "oidc")
	return nil
}

func (h *Handlers) samlACS(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, max(h.MaxBody, 1<<20))
	if err := r.ParseForm(); err != nil {
		h.finish(w, r, nil, failf(codeToken, msgToken, err), "saml")
		return nil
	}
	res, err := h.Svc.SAMLACS(r, flowCookie(r))
	h.finish(w, r, res, err, "saml")
	return nil
}

// finish ends a callback: cookies and a redirect into the app, or a redirect to /app/sso with the
// error's code and message. Either way the flow cookie is cleared.
func (h *Handlers) finish(w http.ResponseWriter, r *http.Request, res *SignedIn, err error, kind string) {
	http.SetCookie(w, &http.Cookie{Name: FlowCookie, Value: "", Path: "/api/sso/", MaxAge: -1, HttpOnly: true, Secure: true, SameSite: http.SameSiteNoneMode})
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		code, msg := "sso_failed", "Something went wrong, please try again later."
		var fe *flowError
		if errors.As(err, &fe) {
			code, msg = fe.Code, fe.Message
			httpx.Logger(r.Context()).Warn("sso sign-in refused", "protocol", kind, "code", fe.Code, "err", fe.Error())
			if fe.WorkspaceID != "" {
				audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{WorkspaceID: fe.WorkspaceID, Class: "sso", Activity: "sign_in_failed",
					Details: audit.Details{"protocol": kind, "reason": fe.Code}})
			}
		} else {
			httpx.Logger(r.Context()).Error("sso sign-in failed", "protocol", kind, "err", err)
		}
		http.Redirect(w, r, "/app/sso?"+url.Values{"error": {code}, "message": {msg}}.Encode(), http.StatusSeeOther)
		return
	}
	auth.SetSessionCookies(w, res.Token, res.CSRF)
	if res.Provisioned {
		audit.Record(r.Context(), h.Svc.DB, r, res.User.ID, res.User.Email, audit.Event{WorkspaceID: res.WorkspaceID, Class: "member", Activity: "user_provisioned",
			Target: res.User.ID, Details: audit.Details{"via": "sso", "provider_id": res.ProviderID, "role": access.RoleEditor}})
	}
	audit.Record(r.Context(), h.Svc.DB, r, res.User.ID, res.User.Email, audit.Event{WorkspaceID: res.WorkspaceID, Class: "sso", Activity: "sign_in",
		Target: res.User.ID, Details: audit.Details{"protocol": kind, "provider_id": res.ProviderID}})
	http.Redirect(w, r, res.Redirect, http.StatusSeeOther)
}

func (h *Handlers) metadata(w http.ResponseWriter, r *http.Request) error {
	b, err := h.Svc.Metadata()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/samlmetadata+xml")
	_, _ = w.Write(b)
	return nil
}
