package fam

import "testing"

func TestReaders(t *testing.T)  { Readers(11) }
func TestLastzero(t *testing.T) { Lastzero(9) }
func TestIndexer(t *testing.T)  { Indexer(14) }

// Larger members, whose exhaustive exploration takes seconds (measure.sh).
func TestReaders13(t *testing.T)  { Readers(13) }
func TestReaders15(t *testing.T)  { Readers(15) }
func TestLastzero11(t *testing.T) { Lastzero(11) }
func TestLastzero12(t *testing.T) { Lastzero(12) }
func TestIndexer15(t *testing.T)  { Indexer(15) }
func TestIndexer16(t *testing.T)  { Indexer(16) }
