package pronunciation

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/store"
)

// Store is what the service needs of the database.
type Store interface {
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	PronunciationDictionary(ctx context.Context, workspaceID, id string, who store.DictionaryViewer) (*store.PronunciationDictionary, error)
	PronunciationVersion(ctx context.Context, workspaceID, dictionaryID, versionID string) (*store.PronunciationVersion, error)
	UpdatePronunciationDictionary(ctx context.Context, workspaceID, id string, name *string, archivedAt *int64, unarchive bool) error
	ListPronunciationDictionaries(ctx context.Context, workspaceID string, who store.DictionaryViewer, p store.DictionaryPage) ([]store.PronunciationDictionary, error)
	SharedRole(ctx context.Context, workspaceID, typ, id, userID string) (string, error)
}

// Service manages dictionaries; it has no HTTP in it.
type Service struct {
	DB  Store
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Meta is a dictionary as the API describes it (GetPronunciationDictionaryMetadataResponseModel).
type Meta struct {
	ID                    string  `json:"id"`
	LatestVersionID       string  `json:"latest_version_id"`
	LatestVersionRulesNum int     `json:"latest_version_rules_num"`
	Name                  string  `json:"name"`
	PermissionOnResource  *string `json:"permission_on_resource"`
	CreatedBy             string  `json:"created_by"`
	CreationTimeUnix      int64   `json:"creation_time_unix"`
	ArchivedTimeUnix      *int64  `json:"archived_time_unix"`
	Description           *string `json:"description"`
}

// WithRules is a dictionary and its latest rules.
type WithRules struct {
	Meta
	Rules []Rule `json:"rules"`
}

// Added answers the creation of a dictionary (AddPronunciationDictionaryResponseModel).
type Added struct {
	ID                   string  `json:"id"`
	Name                 string  `json:"name"`
	CreatedBy            string  `json:"created_by"`
	CreationTimeUnix     int64   `json:"creation_time_unix"`
	VersionID            string  `json:"version_id"`
	VersionRulesNum      int     `json:"version_rules_num"`
	Description          *string `json:"description"`
	PermissionOnResource *string `json:"permission_on_resource"`
}

// Changed answers a change of rules (PronunciationDictionaryRulesResponseModel).
type Changed struct {
	ID              string `json:"id"`
	VersionID       string `json:"version_id"`
	VersionRulesNum int    `json:"version_rules_num"`
}

// Page is a page of the dictionary list.
type Page struct {
	PronunciationDictionaries []Meta  `json:"pronunciation_dictionaries"`
	NextCursor                *string `json:"next_cursor"`
	HasMore                   bool    `json:"has_more"`
}

// Locator names a dictionary and optionally a version (the latest when absent).
type Locator struct {
	PronunciationDictionaryID string  `json:"pronunciation_dictionary_id"`
	VersionID                 *string `json:"version_id"`
}

// MaxLocators is how many dictionaries one request may use.
const MaxLocators = 3

func viewer(c *access.Caller) store.DictionaryViewer {
	return store.DictionaryViewer{UserID: c.UserID, Admin: c.Role == access.RoleAdmin}
}

func notFound(id string) error {
	return errs.Errorf(errs.NotFound, "pronunciation_dictionary_not_found", "The pronunciation dictionary '%s' was not found.", id)
}

// role is the caller's role on a dictionary they can see.
func (s *Service) role(ctx context.Context, c *access.Caller, d *store.PronunciationDictionary) (string, error) {
	if c.Role == access.RoleAdmin || d.CreatedBy == c.UserID {
		return "admin", nil
	}
	return s.DB.SharedRole(ctx, c.WorkspaceID, store.ResourcePronunciationDictionary, d.ID, c.UserID)
}

func (s *Service) get(ctx context.Context, c *access.Caller, id string) (*store.PronunciationDictionary, string, error) {
	d, err := s.DB.PronunciationDictionary(ctx, c.WorkspaceID, id, viewer(c))
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", notFound(id)
	}
	if err != nil {
		return nil, "", err
	}
	role, err := s.role(ctx, c, d)
	if err != nil {
		return nil, "", err
	}
	if role == "" {
		role = "viewer" // visible through a grant that names no role stronger
	}
	return d, role, nil
}

// editable finds a dictionary the caller may change (editor or admin on it).
func (s *Service) editable(ctx context.Context, c *access.Caller, id string) (*store.PronunciationDictionary, error) {
	d, role, err := s.get(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if store.ResourceRoleRank(role) < store.ResourceRoleRank("editor") {
		return nil, errs.Errorf(errs.Forbidden, "forbidden", "You can read this pronunciation dictionary but not change it.")
	}
	return d, nil
}

func meta(d *store.PronunciationDictionary, role string) Meta {
	m := Meta{ID: d.ID, LatestVersionID: d.LatestVersionID, LatestVersionRulesNum: d.LatestRulesNum, Name: d.Name,
		PermissionOnResource: &role, CreatedBy: d.CreatedBy, CreationTimeUnix: d.CreatedAt, ArchivedTimeUnix: d.ArchivedAt}
	if d.Description != "" {
		m.Description = &d.Description
	}
	return m
}

// CreateInput is a new dictionary.
type CreateInput struct {
	Name        string
	Description *string
	Rules       []Rule
}

func validateName(v *errs.Validator, name string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		v.Add("body", "name", "missing", "Field required: the dictionary's name.")
	} else if len(name) > MaxNameLength {
		v.Add("body", "name", "too_long", fmt.Sprintf("At most %d bytes.", MaxNameLength))
	}
	return name
}

// Create adds a dictionary with its first version; ruleField names the rules in errors
// ("rules", or "file" for an upload).
func (s *Service) Create(ctx context.Context, c *access.Caller, in CreateInput) (*Added, error) {
	var v errs.Validator
	name := validateName(&v, in.Name)
	desc := ""
	if in.Description != nil {
		desc = strings.TrimSpace(*in.Description)
		if len(desc) > MaxDescription {
			v.Add("body", "description", "too_long", fmt.Sprintf("At most %d bytes.", MaxDescription))
		}
	}
	rules := normalizeRules(&v, "rules", in.Rules)
	if err := v.Err(); err != nil {
		return nil, err
	}
	now := s.now().Unix()
	d := &store.PronunciationDictionary{ID: store.NewID(), WorkspaceID: c.WorkspaceID, CreatedBy: c.UserID, Name: name, Description: desc, CreatedAt: now}
	ver, err := newVersion(d, rules, now)
	if err != nil {
		return nil, err
	}
	if err := s.DB.InTx(ctx, func(tx *store.Tx) error { return tx.InsertPronunciationDictionary(ctx, d, ver) }); err != nil {
		return nil, err
	}
	admin := "admin"
	out := &Added{ID: d.ID, Name: d.Name, CreatedBy: d.CreatedBy, CreationTimeUnix: now, VersionID: ver.ID, VersionRulesNum: ver.RulesNum, PermissionOnResource: &admin}
	if desc != "" {
		out.Description = &desc
	}
	return out, nil
}

func newVersion(d *store.PronunciationDictionary, rules []Rule, now int64) (*store.PronunciationVersion, error) {
	if rules == nil {
		rules = []Rule{}
	}
	data, err := json.Marshal(rules)
	if err != nil {
		return nil, err
	}
	return &store.PronunciationVersion{ID: store.NewID(), DictionaryID: d.ID, WorkspaceID: d.WorkspaceID, Rules: string(data), RulesNum: len(rules), CreatedAt: now}, nil
}

func (s *Service) rules(ctx context.Context, workspaceID, dictID, versionID string) ([]Rule, error) {
	ver, err := s.DB.PronunciationVersion(ctx, workspaceID, dictID, versionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.Errorf(errs.NotFound, "pronunciation_dictionary_version_not_found", "The version '%s' of pronunciation dictionary '%s' was not found.", versionID, dictID)
	}
	if err != nil {
		return nil, err
	}
	var rules []Rule
	if err := json.Unmarshal([]byte(ver.Rules), &rules); err != nil {
		return nil, err
	}
	return rules, nil
}

// change makes a new version of a dictionary from its latest rules (retrying when another
// change lands in between).
func (s *Service) change(ctx context.Context, c *access.Caller, id string, edit func([]Rule) ([]Rule, error)) (*Changed, error) {
	for range 5 {
		d, err := s.editable(ctx, c, id)
		if err != nil {
			return nil, err
		}
		cur, err := s.rules(ctx, c.WorkspaceID, d.ID, d.LatestVersionID)
		if err != nil {
			return nil, err
		}
		next, err := edit(cur)
		if err != nil {
			return nil, err
		}
		if len(next) > MaxRules {
			return nil, errs.Field("body", "rules", "too_long", fmt.Sprintf("A dictionary holds at most %d rules.", MaxRules))
		}
		ver, err := newVersion(d, next, s.now().Unix())
		if err != nil {
			return nil, err
		}
		err = s.DB.InTx(ctx, func(tx *store.Tx) error { return tx.AddPronunciationVersion(ctx, ver, d.LatestVersionID) })
		if errors.Is(err, store.ErrNotFound) {
			continue // changed meanwhile: start again from the new latest version
		}
		if err != nil {
			return nil, err
		}
		return &Changed{ID: d.ID, VersionID: ver.ID, VersionRulesNum: ver.RulesNum}, nil
	}
	return nil, errs.Errorf(errs.Conflict, "conflict", "The dictionary is being changed by others; try again.")
}

// AddRules adds rules; a rule for a string the dictionary has replaces the old one.
func (s *Service) AddRules(ctx context.Context, c *access.Caller, id string, add []Rule) (*Changed, error) {
	var v errs.Validator
	add = normalizeRules(&v, "rules", add)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return s.change(ctx, c, id, func(cur []Rule) ([]Rule, error) {
		out := slices.DeleteFunc(cur, func(r Rule) bool {
			return slices.ContainsFunc(add, func(a Rule) bool { return a.StringToReplace == r.StringToReplace })
		})
		return append(out, add...), nil
	})
}

// RemoveRules removes the rules for the given strings.
func (s *Service) RemoveRules(ctx context.Context, c *access.Caller, id string, strs []string) (*Changed, error) {
	if len(strs) > MaxRules {
		return nil, errs.Field("body", "rule_strings", "too_long", fmt.Sprintf("At most %d strings.", MaxRules))
	}
	return s.change(ctx, c, id, func(cur []Rule) ([]Rule, error) {
		return slices.DeleteFunc(cur, func(r Rule) bool { return slices.Contains(strs, r.StringToReplace) }), nil
	})
}

// SetRules replaces all the rules.
func (s *Service) SetRules(ctx context.Context, c *access.Caller, id string, rules []Rule) (*Changed, error) {
	var v errs.Validator
	rules = normalizeRules(&v, "rules", rules)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return s.change(ctx, c, id, func([]Rule) ([]Rule, error) { return rules, nil })
}

// Get returns a dictionary and its latest rules.
func (s *Service) Get(ctx context.Context, c *access.Caller, id string) (*WithRules, error) {
	d, role, err := s.get(ctx, c, id)
	if err != nil {
		return nil, err
	}
	rules, err := s.rules(ctx, c.WorkspaceID, d.ID, d.LatestVersionID)
	if err != nil {
		return nil, err
	}
	if rules == nil {
		rules = []Rule{}
	}
	return &WithRules{Meta: meta(d, role), Rules: rules}, nil
}

// Update renames, archives or unarchives a dictionary.
func (s *Service) Update(ctx context.Context, c *access.Caller, id string, name *string, archived *bool) (*Meta, error) {
	var v errs.Validator
	if name != nil {
		n := validateName(&v, *name)
		name = &n
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if _, err := s.editable(ctx, c, id); err != nil {
		return nil, err
	}
	var at *int64
	unarchive := false
	if archived != nil {
		if *archived {
			now := s.now().Unix()
			at = &now
		} else {
			unarchive = true
		}
	}
	if err := s.DB.UpdatePronunciationDictionary(ctx, c.WorkspaceID, id, name, at, unarchive); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, notFound(id)
		}
		return nil, err
	}
	d, role, err := s.get(ctx, c, id)
	if err != nil {
		return nil, err
	}
	m := meta(d, role)
	return &m, nil
}

// Download renders a version as PLS; the file name is the dictionary's.
func (s *Service) Download(ctx context.Context, c *access.Caller, id, versionID string) ([]byte, string, error) {
	d, _, err := s.get(ctx, c, id)
	if err != nil {
		return nil, "", err
	}
	rules, err := s.rules(ctx, c.WorkspaceID, d.ID, versionID)
	if err != nil {
		return nil, "", err
	}
	return RenderPLS(rules, "en-US"), d.Name + ".pls", nil
}

// ListInput selects a page of the list.
type ListInput struct {
	Cursor          string
	PageSize        int
	ByName          bool
	Ascending       bool
	IncludeArchived bool
}

type cursor struct {
	Key string `json:"k"`
	ID  string `json:"i"`
}

// List lists the dictionaries the caller can see.
func (s *Service) List(ctx context.Context, c *access.Caller, in ListInput) (*Page, error) {
	p := store.DictionaryPage{ByName: in.ByName, Ascending: in.Ascending, IncludeArchived: in.IncludeArchived, Limit: in.PageSize}
	if in.Cursor != "" {
		var cur cursor
		raw, err := base64.RawURLEncoding.DecodeString(in.Cursor)
		if err == nil {
			err = json.Unmarshal(raw, &cur)
		}
		if err == nil && !in.ByName {
			_, err = strconv.ParseInt(cur.Key, 10, 64)
		}
		if err != nil {
			return nil, errs.Field("query", "cursor", "value_error", "Not a cursor of this list (and sort).")
		}
		p.AfterKey, p.AfterID = &cur.Key, cur.ID
	}
	rows, err := s.DB.ListPronunciationDictionaries(ctx, c.WorkspaceID, viewer(c), p)
	if err != nil {
		return nil, err
	}
	out := &Page{PronunciationDictionaries: []Meta{}}
	if len(rows) > in.PageSize {
		rows, out.HasMore = rows[:in.PageSize], true
	}
	for i := range rows {
		role, err := s.role(ctx, c, &rows[i])
		if err != nil {
			return nil, err
		}
		if role == "" {
			role = "viewer"
		}
		out.PronunciationDictionaries = append(out.PronunciationDictionaries, meta(&rows[i], role))
	}
	if out.HasMore {
		last := rows[len(rows)-1]
		key := strconv.FormatInt(last.CreatedAt, 10)
		if in.ByName {
			key = last.Name
		}
		raw, _ := json.Marshal(cursor{Key: key, ID: last.ID})
		next := base64.RawURLEncoding.EncodeToString(raw)
		out.NextCursor = &next
	}
	return out, nil
}

// Resolve loads the rules the locators name (each dictionary's latest version unless the
// locator names one) into an Applier; nil when there are none. Unknown dictionaries or versions
// are errors naming pronunciation_dictionary_locators.
func (s *Service) Resolve(ctx context.Context, c *access.Caller, locators []Locator) (*Applier, error) {
	if len(locators) == 0 {
		return nil, nil
	}
	if len(locators) > MaxLocators {
		return nil, errs.Field("body", "pronunciation_dictionary_locators", "too_long", fmt.Sprintf("At most %d pronunciation dictionaries per request.", MaxLocators))
	}
	a := &Applier{}
	for i, l := range locators {
		if l.PronunciationDictionaryID == "" {
			return nil, errs.Field("body", fmt.Sprintf("pronunciation_dictionary_locators.%d.pronunciation_dictionary_id", i), "missing", "Field required.")
		}
		d, err := s.DB.PronunciationDictionary(ctx, c.WorkspaceID, l.PronunciationDictionaryID, viewer(c))
		if errors.Is(err, store.ErrNotFound) {
			return nil, errs.Field("body", "pronunciation_dictionary_locators", "value_error",
				fmt.Sprintf("The pronunciation dictionary '%s' was not found.", l.PronunciationDictionaryID))
		}
		if err != nil {
			return nil, err
		}
		ver := d.LatestVersionID
		if l.VersionID != nil && *l.VersionID != "" {
			ver = *l.VersionID
		}
		rules, err := s.rules(ctx, c.WorkspaceID, d.ID, ver)
		if errs.Is(err, errs.NotFound) {
			return nil, errs.Field("body", "pronunciation_dictionary_locators", "value_error",
				fmt.Sprintf("The version '%s' of pronunciation dictionary '%s' was not found.", ver, d.ID))
		}
		if err != nil {
			return nil, err
		}
		a.add(rules)
	}
	return a, nil
}
