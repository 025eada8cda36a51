package fam

import "testing"

func TestReaders(t *testing.T)  { Readers(11) }
func TestLastzero(t *testing.T) { Lastzero(9) }
func TestIndexer(t *testing.T)  { Indexer(14) }
