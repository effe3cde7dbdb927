package workspace

import (
	"slices"

	"timbre/internal/access"
	"timbre/internal/apikey"
	"timbre/internal/errs"
	"timbre/internal/store"
)

// Group permissions can hand admin duties (inviting, removing members, managing group members)
// to editors. A delegated duty never reaches beyond what the delegate holds: these checks keep
// a delegate from granting themselves or others more than they have.

// errBeyondDuty answers a delegate who tries to act beyond their own access.
func errBeyondDuty(msg string) error {
	return errs.Errorf(errs.Forbidden, "beyond_delegated_access", "%s", msg)
}

// mayGrantGroup says whether the caller may put someone into (or take someone out of) group g:
// admins always; a delegate only for groups whose duties they hold and whose features they have.
func mayGrantGroup(c *access.Caller, g *store.Group) bool {
	if c.Role == access.RoleAdmin {
		return true
	}
	features, duties := apikey.GroupAccess(g.Permissions)
	for _, d := range duties {
		if !slices.Contains(c.Grants, d) {
			return false
		}
	}
	for _, f := range features {
		if !c.HasFeature(f) {
			return false
		}
	}
	return true
}

// checkGroupChange guards a delegate's change of group membership: not their own (leaving a
// restricting group would lift their restrictions), only groups within their access, and a
// removal only by a delegate whom no group restricts (removal can lift another's restrictions).
func checkGroupChange(c *access.Caller, g *store.Group, m *store.Member, removing bool) error {
	if c.Role == access.RoleAdmin {
		return nil
	}
	switch {
	case m.UserID == c.UserID:
		return errBeyondDuty("Only a workspace admin can change your own groups.")
	case m.Role == access.RoleAdmin:
		return errBeyondDuty("Only a workspace admin can change an admin's groups.")
	case !mayGrantGroup(c, g):
		return errBeyondDuty("The group '" + g.Name + "' gives permissions you don't have; only a workspace admin can change its members.")
	case removing && c.Features != nil:
		return errBeyondDuty("Your groups limit the features you use, so only a workspace admin can remove members from groups.")
	}
	return nil
}

// checkInvite guards a delegate's invitation: editors only, and only into groups within their access.
func checkInvite(c *access.Caller, role string, groups []store.Group) error {
	if c.Role == access.RoleAdmin {
		return nil
	}
	if role == access.RoleAdmin {
		return errBeyondDuty("Only a workspace admin can invite admins.")
	}
	limits := false // whether the invitee's groups will limit their features
	for i := range groups {
		if !mayGrantGroup(c, &groups[i]) {
			return errBeyondDuty("The group '" + groups[i].Name + "' gives permissions you don't have; only a workspace admin can invite into it.")
		}
		features, _ := apikey.GroupAccess(groups[i].Permissions)
		limits = limits || len(features) > 0
	}
	// A delegate whose features are limited would otherwise invite an unlimited editor.
	if c.Features != nil && !limits {
		return errBeyondDuty("Your groups limit the features you use, so invite people into a group that limits features too; only a workspace admin can invite without one.")
	}
	return nil
}

// checkRemoval guards a delegate's removal of a member: never an admin, never themselves.
func checkRemoval(c *access.Caller, m *store.Member) error {
	if c.Role == access.RoleAdmin {
		return nil
	}
	if m.UserID == c.UserID {
		return errBeyondDuty("To leave the workspace, ask a workspace admin.")
	}
	if m.Role == access.RoleAdmin {
		return errBeyondDuty("Only a workspace admin can remove an admin.")
	}
	return nil
}
