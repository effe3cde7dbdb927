package store

// The kept generated audio (voice isolations, sound effects, songs) as kept.Row: who made it,
// where its audio is, in which format.

func (i *Isolation) Owner() string       { return i.UserID }
func (i *Isolation) AudioKey() string    { return i.BlobKey }
func (i *Isolation) AudioFormat() string { return i.Format }

func (g *SoundGeneration) Owner() string       { return g.UserID }
func (g *SoundGeneration) AudioKey() string    { return g.BlobKey }
func (g *SoundGeneration) AudioFormat() string { return g.Format }

func (s *Song) Owner() string       { return s.UserID }
func (s *Song) AudioKey() string    { return s.BlobKey }
func (s *Song) AudioFormat() string { return s.Format }
