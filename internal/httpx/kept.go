package httpx

import (
	"context"
	"net/http"
	"strings"

	"timbre/internal/access"
)

// KeptItems is a product's stored generations (isolations, sound effects, songs) as their
// routes list, play and delete them; P is the product's page of items.
type KeptItems[P any] interface {
	History(ctx context.Context, c *access.Caller, page, pageSize int, search string) (P, error)
	Audio(ctx context.Context, c *access.Caller, id string) ([]byte, string, error)
	Delete(ctx context.Context, c *access.Caller, id string) error
}

// KeptRoutes serves base/history (a page: page, page_size, search), base/history/{id}/audio and
// DELETE base/history/{id}, where idParam names the id in the paths.
func KeptRoutes[P any](rt *Router, base, idParam string, items KeptItems[P], opts ...Option) {
	rt.Authed("GET "+base+"/history", func(w http.ResponseWriter, r *http.Request) error {
		page, pageSize, err := PageParams(r)
		if err != nil {
			return err
		}
		p, err := items.History(r.Context(), access.CallerFrom(r.Context()), page, pageSize, strings.TrimSpace(r.URL.Query().Get("search")))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, p)
		return nil
	}, opts...)
	item := base + "/history/{" + idParam + "}"
	rt.Authed("GET "+item+"/audio", func(w http.ResponseWriter, r *http.Request) error {
		data, ct, err := items.Audio(r.Context(), access.CallerFrom(r.Context()), r.PathValue(idParam))
		if err != nil {
			return err
		}
		WriteBody(w, ct, data)
		return nil
	}, opts...)
	rt.Authed("DELETE "+item, func(w http.ResponseWriter, r *http.Request) error {
		if err := items.Delete(r.Context(), access.CallerFrom(r.Context()), r.PathValue(idParam)); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}, opts...)
}
