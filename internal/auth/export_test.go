package auth

// DummyHash is dummyHash, for the tests.
var DummyHash = dummyHash
