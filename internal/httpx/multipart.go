package httpx

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"slices"

	"timbre/internal/errs"
)

// ErrNotMultipart answers an upload route sent anything but multipart/form-data.
var ErrNotMultipart = errs.New(errs.Unsupported, "unsupported_media_type", "Send the request as multipart/form-data with the audio in the file field.")

// MaxFormFieldBytes bounds each text field of a multipart form; the file has its own limit.
const MaxFormFieldBytes = 1 << 20

// Form is a multipart/form-data body: its text fields and its one file.
type Form struct {
	Fields map[string][]string
	// File is nil when no file part came, empty when an empty file came.
	File     []byte
	FileName string
	// Files are every file part, in order (ReadFormFiles only).
	Files []FormFile
}

// FormFile is one file part of a multipart form.
type FormFile struct {
	Field       string
	Name        string
	ContentType string
	Data        []byte
}

// Value is the first value of a text field ("" when absent).
func (f *Form) Value(name string) string {
	if v := f.Fields[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Values are every value of a text field.
func (f *Form) Values(name string) []string { return f.Fields[name] }

// ReadForm reads a multipart/form-data body part by part, keeping the file of a part named in
// fileFields (at most limit bytes; 413 beyond) and the text fields (each at most
// MaxFormFieldBytes), so that an oversize upload is refused as it arrives rather than after it
// was stored.
func ReadForm(r *http.Request, limit int64, fileFields ...string) (*Form, error) {
	return readForm(r, limit, limit, false, fileFields)
}

// ReadFormFiles is ReadForm for forms with several files (repeated parts of the fileFields):
// each file at most perFile bytes, all of them at most total bytes (413 beyond either).
func ReadFormFiles(r *http.Request, perFile, total int64, fileFields ...string) (*Form, error) {
	return readForm(r, perFile, total, true, fileFields)
}

func readForm(r *http.Request, limit, total int64, multi bool, fileFields []string) (*Form, error) {
	budget := total
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, ErrNotMultipart
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	f := &Form{Fields: map[string][]string{}}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return f, nil
		}
		if err != nil {
			return nil, formError(err)
		}
		name := p.FormName()
		if slices.Contains(fileFields, name) && multi {
			data, err := io.ReadAll(io.LimitReader(p, min(limit, total)+1))
			if err != nil {
				return nil, formError(err)
			}
			// Several files are the items of one field (named by the first of fileFields): a file
			// over its limit is a 422 naming that field.
			var v errs.Validator
			if int64(len(data)) > limit {
				v.Add("body", fileFields[0], "value_error", fmt.Sprintf("The file %q is larger than %d MB.", p.FileName(), limit>>20))
				return nil, v.Err()
			}
			if total -= int64(len(data)); total < 0 {
				v.Add("body", fileFields[0], "value_error", fmt.Sprintf("The files together are larger than the %d MB accepted.", budget>>20))
				return nil, v.Err()
			}
			f.Files = append(f.Files, FormFile{Field: name, Name: p.FileName(), ContentType: p.Header.Get("Content-Type"), Data: data})
			continue
		}
		if slices.Contains(fileFields, name) {
			if f.File != nil {
				var v errs.Validator
				v.Add("body", name, "value_error", "Send one file.")
				return nil, v.Err()
			}
			data, err := io.ReadAll(io.LimitReader(p, limit+1))
			if err != nil {
				return nil, formError(err)
			}
			if int64(len(data)) > limit {
				return nil, errs.Errorf(errs.TooLarge, "file_too_large", "The file is larger than %d MB.", limit>>20)
			}
			f.File, f.FileName = data, p.FileName()
			if f.File == nil {
				f.File = []byte{}
			}
			continue
		}
		data, err := io.ReadAll(io.LimitReader(p, MaxFormFieldBytes+1))
		if err != nil {
			return nil, formError(err)
		}
		if len(data) > MaxFormFieldBytes {
			var v errs.Validator
			v.Add("body", name, "too_long", "The field is larger than 1 MB.")
			return nil, v.Err()
		}
		f.Fields[name] = append(f.Fields[name], string(data))
	}
}

// formError keeps errors of the connection (a cut body, the read deadline) for WriteError to
// answer, and calls anything else a malformed form.
func formError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	return errs.Errorf(errs.Invalid, "invalid_multipart", "The multipart body could not be read: %v", err)
}
