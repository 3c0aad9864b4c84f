from lakeboard.servers.relevance.tokens import query_terms, quoted_phrases, terms, words


def test_identifiers_are_split_into_words():
    assert words("nifcHumanCausedAcres total_acres-2024") == ["nifc", "human", "caused", "acres", "total", "acres", "2024"]


def test_terms_drop_question_words_and_stem():
    assert terms("What is the average number of fires per state? Round to 2 decimal places.") == ["fire", "state"]


def test_years_are_kept_other_numbers_are_not():
    assert terms("reports in 2024 rounded to 4 places with 100 acres") == ["report", "2024", "acr"]


def test_query_terms_remember_the_word():
    assert query_terms("Lightning fires")["lightn"] == "lightning"


def test_quoted_phrases_keep_stopwords():
    assert quoted_phrases("were 'Other' reports more than \"Prizes, Sweepstakes and Lotteries\"?") == [
        ["other"], ["prize", "sweepstak", "and", "lotteri"]]
    assert quoted_phrases("the lake's files don't matter") == []


def test_prose_keeps_formulas_and_decimals_whole_where_identifiers_are_split():
    from lakeboard.servers.relevance.tokens import prose_words

    assert prose_words("PM2.5 and NO2 in max_temp, a b.") == ["pm2.5", "and", "no2", "in", "max_temp"]
    assert words("PM2.5 and NO2") == ["pm", "2", "5", "and", "no", "2"]
